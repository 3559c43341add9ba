//! Rule declarations, docs and fixtures stay in step: every registered rule has a valid TOML
//! (prose only: the facts are declared in the rule's file), every TOML is registered, the
//! documented options are exactly the ones the rule's options struct accepts, every rule has
//! fixtures, and every rule's documented example fires while its "use instead" stays silent.

use lemplint::engine::collect;
use lemplint::engine::StackArgs;
use lemplint::rules::RULES;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_rule_has_matching_docs_and_fixtures() {
    for rule in RULES.iter() {
        let meta = lemplint::rules::meta::RuleMeta::parse(rule.toml)
            .unwrap_or_else(|e| panic!("rules/{}/{}.toml: {e}", rule.lang, rule.code));
        assert!(
            !meta.summary.trim().is_empty() && !meta.summary.contains('\n'),
            "{}: the summary is one line",
            rule.code
        );
        for (section, text) in [
            ("what-it-does", &meta.docs.what_it_does),
            ("why-it-matters", &meta.docs.why_it_matters),
            ("example", &meta.docs.example),
            ("use-instead", &meta.docs.use_instead),
            ("fix-safety", &meta.docs.fix_safety),
        ] {
            assert!(
                !text.trim().is_empty(),
                "{}: empty docs section {section}",
                rule.code
            );
        }
        let fixtures = root().join("fixtures").join(rule.lang).join(rule.code);
        assert!(
            fixtures.is_dir(),
            "{} has no {}",
            rule.code,
            fixtures.display()
        );
    }
    let mut names: Vec<&str> = RULES.iter().map(|r| r.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), RULES.len(), "rule names must be unique");
}

#[test]
fn documented_options_are_the_declared_ones() {
    for rule in RULES.iter() {
        let meta = rule.meta();
        let mut documented: Vec<&str> = meta.options.keys().map(String::as_str).collect();
        let mut declared = rule.option_names().to_vec();
        documented.sort_unstable();
        declared.sort_unstable();
        assert_eq!(
            documented, declared,
            "{}: the options in rules/{}/{}.toml differ from the ones its options struct accepts",
            rule.code, rule.lang, rule.code
        );
        // The documented default is a value the option accepts: written as the only key of
        // the rule's table, lemplint.toml loads.
        for (key, doc) in &meta.options {
            let mut table = toml::Table::new();
            table.insert(key.clone(), doc.default.clone());
            let mut rules = toml::Table::new();
            rules.insert(rule.code.to_string(), toml::Value::Table(table));
            let mut root = toml::Table::new();
            root.insert("rules".into(), toml::Value::Table(rules));
            let text = toml::to_string(&root).unwrap();
            let loaded = lemplint::config::parse(Path::new("lemplint.toml"), text.clone())
                .unwrap_or_else(|e| panic!("{}: {}", rule.code, e.message));
            if let Err(e) = lemplint::rules::RuleOptions::from_tables(&loaded.config.rules) {
                panic!(
                    "{}: the documented default of `{key}` is rejected: {}\n{text}",
                    rule.code, e.message
                );
            }
        }
    }
}

/// The registry lists rules in code order, grouped by language (`NGX`, `FPM`, `SYS`, `STK`,
/// `LINT`), and a code's prefix names its language's folder.
#[test]
fn the_registry_is_in_code_order_and_prefixes_match_languages() {
    const ORDER: [(&str, &str); 5] = [
        ("NGX", "nginx"),
        ("FPM", "fpm"),
        ("SYS", "sysctl"),
        ("STK", "stack"),
        ("LINT", "lint"),
    ];
    let key = |code: &str| {
        let (rank, (prefix, _)) = ORDER
            .iter()
            .enumerate()
            .find(|(_, (p, _))| code.starts_with(p))
            .unwrap_or_else(|| panic!("{code}: an unknown prefix"));
        let number: u32 = code[prefix.len()..]
            .parse()
            .unwrap_or_else(|_| panic!("{code}: a prefix and a number"));
        (rank, number)
    };
    for rule in RULES.iter() {
        let (rank, _) = key(rule.code);
        assert_eq!(rule.lang, ORDER[rank].1, "{}: declared lang", rule.code);
    }
    for pair in RULES.windows(2) {
        assert!(
            key(pair[0].code) < key(pair[1].code),
            "the registry lists {} before {}",
            pair[0].code,
            pair[1].code
        );
    }
}

#[test]
fn every_rule_doc_file_is_registered() {
    for lang in std::fs::read_dir(root().join("rules")).unwrap().flatten() {
        for f in std::fs::read_dir(lang.path()).unwrap().flatten() {
            let code = f.path().file_stem().unwrap().to_string_lossy().into_owned();
            let lang = lang.file_name().to_string_lossy().into_owned();
            assert!(
                RULES.iter().any(|r| r.code == code && r.lang == lang),
                "rules/{lang}/{code}.toml is not registered in src/rules/registry.rs"
            );
        }
    }
}

/// Where a rule's example is written: the file name decides how lemplint reads it.
fn example_path(lang: &str) -> &'static str {
    match lang {
        "fpm" => "etc/php/8.2/fpm/pool.d/www.conf",
        "sysctl" => "etc/sysctl.d/99-example.conf",
        _ => "nginx.conf",
    }
}

/// Splits an example into files: lines `# file: PATH` (or `; file: PATH`) start a new file
/// (for rules that look across nginx, PHP-FPM and sysctl files); otherwise the whole text is
/// one file at the language's usual path.
fn example_files(lang: &str, text: &str) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = Vec::new();
    for line in text.split_inclusive('\n') {
        let marker = line.trim_start_matches(['#', ';']).trim();
        if (line.starts_with("# file: ") || line.starts_with("; file: "))
            && marker.starts_with("file: ")
        {
            files.push((marker["file: ".len()..].to_string(), String::new()));
            continue;
        }
        match files.last_mut() {
            Some((_, body)) => body.push_str(line),
            None => files.push((example_path(lang).to_string(), line.to_string())),
        }
    }
    files
}

fn findings(
    lang: &str,
    code: &str,
    text: &str,
    host: Option<&lemplint::host::HostSpec>,
) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    for (rel, body) in example_files(lang, text) {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, body).unwrap();
    }
    let args = StackArgs {
        paths: vec![dir.path().to_path_buf()],
        isolated: true,
        cpus: host.and_then(|h| h.cpus),
        memory: host.and_then(|h| h.memory.as_ref()).map(|m| match m {
            lemplint::host::SizeValue::Bytes(b) => b.to_string(),
            lemplint::host::SizeValue::Text(t) => t.clone(),
        }),
        kernel: host.and_then(|h| h.kernel.clone()),
        ..Default::default()
    };
    let select = if lang == "lint" {
        vec![]
    } else {
        vec![code.to_string()]
    };
    let (_, f) = collect(&args, &select, &[], None).unwrap();
    f.diagnostics
        .iter()
        .filter(|d| d.code == code)
        .map(|d| d.message.clone())
        .collect()
}

#[test]
fn every_documented_example_fires_and_its_correction_does_not() {
    for rule in RULES.iter() {
        let docs = &rule.meta().docs;
        if docs.example_not_runnable.is_some() {
            continue;
        }
        let host = docs.example_host.as_ref();
        let fired = findings(rule.lang, rule.code, &docs.example, host);
        assert!(
            !fired.is_empty(),
            "{}: the documented example does not fire",
            rule.code
        );
        let fired = findings(rule.lang, rule.code, &docs.use_instead, host);
        assert!(
            fired.is_empty(),
            "{}: the documented 'use instead' fires: {fired:?}",
            rule.code
        );
    }
}

/// The README's rule table is generated from the registry and the TOML summaries: this
/// fails when it differs, and `LEMPLINT_BLESS=1 cargo test --test registry` rewrites it.
#[test]
fn readme_rule_table_is_generated() {
    const START: &str = "<!-- rules:start";
    const END: &str = "<!-- rules:end -->";
    let path = root().join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let start = readme
        .find(START)
        .expect("README.md has a `<!-- rules:start` marker");
    let body = start + readme[start..].find('\n').expect("a line after the marker") + 1;
    let end = body
        + readme[body..]
            .find(END)
            .expect("README.md has a `<!-- rules:end -->` marker");
    let table = lemplint::cli::rule::markdown_table();
    if readme[body..end] == table {
        return;
    }
    if std::env::var_os("LEMPLINT_BLESS").is_some_and(|v| v == "1") {
        let blessed = format!("{}{table}{}", &readme[..body], &readme[end..]);
        std::fs::write(&path, blessed).unwrap();
        eprintln!("README.md: rule table rewritten");
        return;
    }
    panic!(
        "README.md's rule table is out of date; rewrite it with `LEMPLINT_BLESS=1 cargo test --test registry`\n--- README\n{}--- generated\n{table}",
        &readme[body..end]
    );
}
