//! The stack: everything one server runs, read and connected.
//!
//! Built from the files discovery found for one server root: the nginx configurations (each
//! main file with its includes, expanded), PHP-FPM masters and pools, the effective sysctl
//! values, and the host facts. Rules read a `Stack`; they never touch the file system.

use super::discover::StackFiles;
use super::expanded::Expanded;
use super::fs::{FileKey, Fs};
use super::memo::Memo;
use super::nginx::{self, LoadOptions, NginxConfig};
use crate::host::HostFacts;
use crate::source::FileId;
// Fx, not SipHash: these are keyed by the stack's own paths and file keys, thousands per
// tree (a 10 MB tree's sets of paths were rehashed with SipHash 40,000 times).
use crate::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::path::{Path, PathBuf};

/// One nginx configuration: a main file with everything it includes.
pub struct NginxInstance {
    /// Its position in [`Stack::nginx`], set when the stack is built.
    pub id: super::ids::NginxId,
    pub config: NginxConfig,
    pub expanded: Expanded,
    /// True for a file nothing includes that is not an `nginx.conf` (a vhost kept in
    /// `sites-available`, a snippet): it is checked on its own, without a context.
    pub standalone: bool,
    /// Facts rules derive from this configuration, computed once (see [`Memo`]).
    pub memo: Memo,
    /// The contexts each occurrence may stand in, by occurrence id: computed once, on the
    /// first question ([`NginxInstance::contexts`]).
    pub contexts: std::sync::OnceLock<Box<[crate::syntax::nginx::known::Ctx]>>,
}

impl NginxInstance {
    /// The contexts occurrence `occ` may stand in: one for a configuration read from its
    /// main file, several at the top of a file nothing includes, or inside an unknown block.
    /// Every rule asks this of many directives, so the answers for all occurrences are
    /// computed in one pass (parents come before their children), each block's name looked
    /// up once per distinct name.
    pub fn contexts(&self, occ: super::expanded::OccId) -> crate::syntax::nginx::known::Ctx {
        use crate::syntax::nginx::known;
        let table = self.contexts.get_or_init(|| {
            let ex = &self.expanded;
            let top = if self.standalone {
                known::ANY
            } else {
                known::MAIN
            };
            let mut by_name: Vec<Option<Option<&'static known::Known>>> =
                vec![None; ex.name_count()];
            let mut stand: Vec<known::Ctx> = Vec::with_capacity(ex.occurrences.len());
            // What a block's children stand in (only read for blocks).
            let mut inner: Vec<known::Ctx> = Vec::with_capacity(ex.occurrences.len());
            for o in &ex.occurrences {
                let here = if o.parent == super::expanded::NO_PARENT {
                    top
                } else {
                    inner[o.parent as usize]
                };
                let k = *by_name[o.name as usize].get_or_insert_with(|| {
                    known::get(known::lookup(ex.name_text(o.name).as_bytes()))
                });
                stand.push(here);
                inner.push(k.map_or(known::ANY, |k| k.inner(here)));
            }
            stand.into_boxed_slice()
        });
        table[occ as usize]
    }

    pub fn view(&self) -> super::expanded::View<'_> {
        super::expanded::View {
            config: &self.config,
            expanded: &self.expanded,
        }
    }
}

pub struct Stack {
    /// The directory the stack was found in (empty: the current directory).
    pub root: PathBuf,
    pub nginx: Vec<NginxInstance>,
    /// PHP-FPM masters with their pools, then pool files no master includes.
    pub fpm: Vec<super::fpm::FpmConfig>,
    pub sysctl: super::sysctl::SysctlSet,
    /// The php.ini files, by the directory PHP reads them from.
    pub php_ini: super::php_ini::IniSets,
    pub host: HostFacts,
    /// Files found but not read (permissions, size cap, a directory, outside the tree).
    pub unreadable: Vec<Unread>,
    /// Files found and deliberately not linted, with why (a template).
    pub skipped: Vec<(PathBuf, String)>,
    /// Why discovery took each file it found for what it is (see [`StackFiles::why`]).
    pub why: crate::fxhash::FxHashMap<PathBuf, String>,
    /// Each distinct nginx file once: (configuration, file) of its first reading.
    distinct_nginx: Vec<(usize, FileId)>,
    /// The files nginx directives name that rules read (`ssl_dhparam`).
    pub side_files: super::side_files::SideFiles,
    /// The tree builds images and each runs as an unprivileged `USER`
    /// ([`super::php_image::images_run_unprivileged`]).
    pub images_unprivileged: bool,
}

/// The largest deployment script read to see which files it supplies.
const MAX_SCRIPT_SIZE: usize = 1 << 20;

/// Includes of files the tree lacks that the deployment supplies
/// ([`nginx::LoadProblemKind::Supplied`]), not missing:
/// - certbot's own files (`/etc/letsencrypt/options-ssl-nginx.conf`, written by its nginx
///   plugin beside the account keys and certificates, a directory no repository commits);
/// - a file a deployment script of the tree names (a Dockerfile that downloads
///   `globalblacklist.conf`, an entrypoint that writes `resolver.conf`, a task that renders
///   `listen-443.conf.j2`);
/// - an include written in an Ansible role's template or file (`roles/<role>/templates/…`):
///   the role's tasks copy it to its place on the server, where a relative include reads
///   from nginx's prefix, beside snippets other tasks or roles install; what is missing
///   beside the template in the repository says nothing about the server.
///
/// The scripts are read only when some include is missing.
fn supplied_at_deployment(fs: &dyn Fs, scripts: &[PathBuf], nginx: &mut [NginxInstance]) {
    let missing = nginx
        .iter()
        .flat_map(|i| &i.config.problems)
        .any(|p| matches!(p.kind, nginx::LoadProblemKind::IncludeNotFound { .. }));
    if !missing {
        return;
    }
    let texts: Vec<(&PathBuf, Vec<u8>)> = scripts
        .iter()
        .filter_map(|p| {
            let mut t = fs.read(p).ok()?;
            t.truncate(MAX_SCRIPT_SIZE);
            Some((p, t))
        })
        .collect();
    for inst in nginx.iter_mut() {
        let files = &inst.config.files;
        for p in &mut inst.config.problems {
            let nginx::LoadProblemKind::IncludeNotFound { path, .. } = &p.kind else {
                continue;
            };
            let includer = files
                .get(p.file.0 as usize)
                .map(|f| f.source.path.as_path());
            let root = inst.config.root.as_deref();
            if let Some(by) = supplier(path, includer, root, &texts) {
                p.kind = nginx::LoadProblemKind::Supplied {
                    path: path.clone(),
                    by,
                };
            }
        }
    }
}

/// Who supplies the missing `path` that `includer` includes, in words (see
/// [`supplied_at_deployment`]).
fn supplier(
    path: &Path,
    includer: Option<&Path>,
    root: Option<&Path>,
    scripts: &[(&PathBuf, Vec<u8>)],
) -> Option<String> {
    if path
        .ancestors()
        .any(|a| a.ends_with("etc/letsencrypt") && a != path)
    {
        return Some("certbot writes it".into());
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    if let Some((script, _)) =
        name.and_then(|name| scripts.iter().find(|(_, t)| names_file(t, name.as_bytes())))
    {
        return Some(format!("{} names it", crate::escape::path(script)));
    }
    if let Some((script, dir)) = built_directory(path, includer, root, scripts) {
        return Some(format!(
            "{} builds `{}`",
            crate::escape::path(script),
            crate::escape::text(&dir)
        ));
    }
    includer
        .filter(|f| in_ansible_role(f))
        .map(|_| "an Ansible role's tasks install the including template and its snippets".into())
}

/// Directories no deployment script can be said to build by naming them: system prefixes
/// every image touches. A file under one of them is only supplied when a script names it.
const SYSTEM_DIRS: &[&str] = &[
    "/",
    "/etc",
    "/usr",
    "/usr/local",
    "/usr/share",
    "/usr/lib",
    "/var",
    "/var/lib",
    "/var/www",
    "/srv",
    "/opt",
    "/home",
    "/tmp",
    "/run",
    "/app",
];

/// A directory above the missing `path` (as nginx names it, under the server `root`) that a
/// deployment script names as a whole path, with that script: the Dockerfile that runs
/// `composer create-project flarum/flarum /flarum/app` fills `/flarum/app`, so
/// `include /flarum/app/.nginx.conf` reads a file the application ships. The directory
/// must lie outside the including file's own directory tree (a Dockerfile that copies
/// `/etc/nginx/` says nothing about a snippet missing there), and not be a system prefix.
fn built_directory<'s>(
    path: &Path,
    includer: Option<&Path>,
    root: Option<&Path>,
    scripts: &'s [(&PathBuf, Vec<u8>)],
) -> Option<(&'s PathBuf, String)> {
    let root = root?;
    let seen = Path::new("/").join(path.strip_prefix(root).ok()?);
    let conf_dir = includer
        .and_then(|f| f.strip_prefix(root).ok())
        .and_then(|f| Path::new("/").join(f).parent().map(Path::to_path_buf));
    seen.ancestors().skip(1).find_map(|dir| {
        let text = dir.to_str()?;
        if SYSTEM_DIRS.contains(&text)
            || conf_dir
                .as_deref()
                .is_some_and(|c| c.starts_with(dir) || dir.starts_with(c))
        {
            return None;
        }
        let (script, _) = scripts
            .iter()
            .find(|(_, t)| names_dir(t, text.as_bytes()))?;
        Some((*script, text.to_string()))
    })
}

/// Whether `text` names the directory `dir` itself as a whole path, with or without a
/// trailing `/` (`/flarum/app`, `/flarum/app/`): not inside a longer word, and not as the
/// parent of something else (`/flarum/app` says nothing about `/flarum/application`).
fn names_dir(text: &[u8], dir: &[u8]) -> bool {
    let part = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.');
    memchr::memmem::find_iter(text, dir).any(|i| {
        let before = i.checked_sub(1).map(|j| text[j]);
        let mut end = i + dir.len();
        if text.get(end) == Some(&b'/') {
            end += 1;
        }
        let after = text.get(end).copied();
        !before.is_some_and(|b| part(b) || b == b'/')
            && !after.is_some_and(|b| part(b) || b == b'/')
    })
}

/// Whether `path` lies in `roles/<role>/templates/` or `roles/<role>/files/`.
fn in_ansible_role(path: &Path) -> bool {
    let parts: Vec<&std::ffi::OsStr> = path.iter().collect();
    parts
        .windows(3)
        .any(|w| w[0] == "roles" && (w[2] == "templates" || w[2] == "files"))
}

/// Whether `text` names the file `name` as a whole word of a path (`…/blockbots/name`,
/// `> name`, or its template `name.j2`), not as part of a longer name.
fn names_file(text: &[u8], name: &[u8]) -> bool {
    let part = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.');
    memchr::memmem::find_iter(text, name).any(|i| {
        let before = i.checked_sub(1).map(|j| text[j]);
        let mut end = i + name.len();
        // `proxy-settings.conf.j2`: a task that renders the file names its template.
        if text.get(end) == Some(&b'.') {
            let ext_len = text[end + 1..].iter().take_while(|&&b| part(b)).count();
            let ext = String::from_utf8_lossy(&text[end + 1..end + 1 + ext_len]);
            if super::discover::template_stem(&format!("x.{ext}")).is_some() {
                end += 1 + ext_len;
            }
        }
        !before.is_some_and(part) && !text.get(end).copied().is_some_and(part)
    })
}

/// Directories that hold copies kept aside, not configuration in use.
const STALE_DIRS: &[&str] = &[
    "old",
    "backup",
    "backups",
    "bak",
    "archive",
    "archived",
    "unused",
    "disabled",
    "deprecated",
    "obsolete",
    "attic",
];

/// The file names the nginx files of the tree name in an `include` they have commented out
/// (`#include /etc/nginx/wp-multisite-subdir;`): alternatives switched off on purpose.
fn commented_includes(mains: &[&NginxInstance]) -> HashSet<Vec<u8>> {
    mains
        .iter()
        .flat_map(|m| &m.config.files)
        .map(|f| &f.source.text)
        .filter(|text| memchr::memmem::find(text, b"include").is_some())
        .flat_map(|text| commented_lines(text))
        .filter_map(commented_include_name)
        .collect()
}

/// The lines of `text` whose first non-blank byte is `#`, found from the `#`s rather than by
/// splitting every line (most lines hold none); each line once however many `#`s it holds.
fn commented_lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut done = 0;
    memchr::memchr_iter(b'#', text).filter_map(move |i| {
        if i < done {
            return None;
        }
        let start = memchr::memrchr(b'\n', &text[..i]).map_or(0, |n| n + 1);
        let end = memchr::memchr(b'\n', &text[i..]).map_or(text.len(), |n| i + n);
        done = end;
        text[start..i]
            .iter()
            .all(u8::is_ascii_whitespace)
            .then(|| &text[start..end])
    })
}

/// `# include /etc/nginx/wp-multisite-subdir;` → `wp-multisite-subdir`.
fn commented_include_name(line: &[u8]) -> Option<Vec<u8>> {
    let rest = line.trim_ascii_start().strip_prefix(b"#")?;
    let hashes = rest
        .iter()
        .take_while(|&&b| b == b'#' || b.is_ascii_whitespace());
    let rest = &rest[hashes.count()..];
    let arg = rest.strip_prefix(b"include")?;
    if !arg.first()?.is_ascii_whitespace() {
        return None;
    }
    let path = arg.split(|&b| b == b';').next()?;
    let name: Vec<u8> = path
        .rsplit(|&b| b == b'/')
        .next()?
        .iter()
        .copied()
        .filter(|&b| !matches!(b, b'"' | b'\'') && !b.is_ascii_whitespace())
        .collect();
    (!name.is_empty()).then_some(name)
}

/// Why nothing the server starts from reads a file (see [`Stack::unloaded_files`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unloaded {
    /// Left out on purpose: a site in `sites-available/` that `sites-enabled/` does not
    /// link, or a file the distribution ships for configurations to include
    /// (`proxy_params`, `snippets/fastcgi-php.conf`) that none does. Its findings are
    /// told as info: they fail no gate.
    Disabled,
    /// Kept in the repository but not read by this configuration (an installer's vhost
    /// templates, an alternative setup): its findings keep their severity, marked.
    Unused,
}

/// Files Debian's, Alpine's and nginx.org's packages put beside nginx.conf for a
/// configuration to include.
pub const STOCK_NGINX_FILES: &[&str] = &[
    "proxy_params",
    "fastcgi_params",
    "fastcgi.conf",
    "scgi_params",
    "uwsgi_params",
    "fastcgi-php.conf",
    "snakeoil.conf",
    "koi-utf",
    "koi-win",
    "win-utf",
    "mime.types",
];

/// A file found but not read.
#[derive(Clone, Debug)]
pub struct Unread {
    pub path: PathBuf,
    /// Why, worded as nginx words errno (`13: Permission denied`).
    pub why: String,
    /// Set when it was never opened because it leads out of the linted tree (LINT004);
    /// otherwise reading it failed (LINT003).
    pub refused: Option<super::confine::Refusal>,
}

impl Unread {
    pub fn new(path: &Path, e: &std::io::Error) -> Unread {
        Unread {
            path: path.to_path_buf(),
            why: nginx::io_message(e),
            refused: super::confine::refusal(e),
        }
    }
}

/// Options shared by every stack of a run.
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    pub prefix: Option<PathBuf>,
    /// Overrides the detected server root for absolute includes.
    pub root: Option<PathBuf>,
}

impl Stack {
    /// The root as shown to the user: `.` for the current directory.
    pub fn shown_root(&self) -> String {
        if self.root.as_os_str().is_empty() {
            ".".into()
        } else {
            crate::escape::path(&self.root)
        }
    }

    /// Reads and connects a stack's files through `fs` (the disk, or the disk with the
    /// fixer's pending edits laid over it).
    pub fn build(
        fs: &dyn Fs,
        files: &StackFiles,
        opts: &BuildOptions,
        mut host: HostFacts,
    ) -> Stack {
        let t = std::time::Instant::now();
        // The open-files limit nginx's unit gives it, when the repository has the unit and
        // neither the command line nor lemplint.toml said otherwise.
        if host.nofile.is_none() {
            if let Some(n) = super::systemd::nginx_nofile(fs, &files.root) {
                host.nofile = Some(crate::host::Fact {
                    value: n.soft,
                    source: crate::host::Provenance::File {
                        file: crate::escape::path(&n.file),
                        line: n.line,
                        text: n.text,
                    },
                });
            }
        }
        let mut roles = Roles {
            fs,
            files,
            opts,
            claimed: Claimed::default(),
            unreadable: Vec::new(),
            skipped: Vec::new(),
        };
        let mut nginx = roles.nginx_entry_points();
        // First the files a Dockerfile copies into a php-fpm image's php-fpm.d/: a
        // `config/php-fpm.conf` copied there as `www.conf` is a pool of the image's master,
        // whatever its name says (read as a master of its own, its pool was judged alone).
        let (images, why_image) = roles.image_pools();
        let mut fpm = roles.fpm_masters();
        let mut why_extra = Vec::new();
        if nginx.is_empty() {
            let (mains, why) = roles.platform_mains();
            nginx.extend(mains);
            why_extra = why;
        }
        nginx.extend(roles.nginx_standalone());
        fpm.extend(images);
        why_extra.extend(why_image);
        fpm.extend(roles.lone_pools());
        supplied_at_deployment(fs, &files.deploy_scripts, &mut nginx);
        crate::timings::report(format_args!("nginx and php-fpm files"), t);
        let sysctl_paths = roles.sysctl_paths();
        let ini_paths: Vec<PathBuf> = files
            .php_ini
            .iter()
            .filter(|p| !roles.claimed.has(fs, p))
            .cloned()
            .collect();
        let mut unreadable = roles.unreadable;
        let skipped = roles.skipped;
        for (i, inst) in nginx.iter_mut().enumerate() {
            inst.id = super::ids::NginxId::new(i);
        }
        let distinct_nginx = distinct_files(&nginx);
        let sysctl = super::sysctl::load(fs, &files.root, &sysctl_paths, &mut unreadable);
        let php_ini = super::php_ini::load(fs, &files.root, &ini_paths, &mut unreadable);
        let side_files = super::side_files::SideFiles::load(fs, &nginx);
        let images_unprivileged =
            super::php_image::images_run_unprivileged(fs, &files.deploy_scripts);
        Stack {
            root: files.root.clone(),
            nginx,
            fpm,
            sysctl,
            php_ini,
            host,
            unreadable,
            skipped,
            why: {
                let mut why = files.why.clone();
                why.extend(why_extra);
                why
            },
            distinct_nginx,
            side_files,
            images_unprivileged,
        }
    }

    /// Every nginx file of the stack once, even when several configurations read it.
    pub fn nginx_files(&self) -> Vec<&nginx::NginxFile> {
        self.distinct_nginx
            .iter()
            .map(|&(i, f)| self.nginx[i].config.file(f))
            .collect()
    }

    /// Every PHP-FPM file of the stack once.
    pub fn fpm_files(&self) -> Vec<&super::fpm::FpmFile> {
        let mut seen = HashSet::default();
        self.fpm
            .iter()
            .flat_map(|c| c.files.iter())
            .filter(|f| seen.insert(f.source.path.as_path()))
            .collect()
    }

    /// Every pool php-fpm runs, with its configuration: the pools of the masters, and the
    /// pool files no master includes only when they may be running (see
    /// [`Stack::lone_pools_run`]). These are what memory, tuning and nginx's FastCGI
    /// targets are judged against.
    pub fn pools(&self) -> impl Iterator<Item = (&super::fpm::FpmConfig, &super::fpm::Pool)> {
        let lone = self.lone_pools_run();
        self.fpm
            .iter()
            .filter(move |c| c.has_master || lone)
            .flat_map(|c| c.pools.iter().map(move |p| (c, p)))
    }

    /// Whether php-fpm may be running the pool files that no master of this stack includes:
    /// yes when the stack has no master (the server's own includes them, as Debian's
    /// `include=…/pool.d/*.conf`), or when a master has an include that could not be followed
    /// (a path of the server with no root to map it). When every master's includes were
    /// followed, a pool file none of them reads is not loaded: a leftover, or kept for later.
    pub fn lone_pools_run(&self) -> bool {
        // An image's stock master reads only what the Dockerfile copies into it: it says
        // nothing of the pool files of other containers or hosts.
        let mut masters = self
            .fpm
            .iter()
            .filter(|c| c.has_master && c.image.is_none())
            .peekable();
        masters.peek().is_none()
            || masters.any(|c| {
                c.problems
                    .iter()
                    .any(|p| !p.verifiable || p.refused.is_some())
            })
    }

    /// The files that nothing the server starts from reads: when the stack has an nginx
    /// main configuration whose includes were all followed, the nginx files none of its
    /// main configurations reads (`sites-available/x` not linked from `sites-enabled`, a
    /// stale copy); when every php-fpm master's includes were followed, the pool files
    /// none of them reads. A repository of fragments with no main file (the platform's
    /// own includes them) has none: whether they run is not known here.
    pub fn unloaded_files(&self) -> HashMap<&Path, Unloaded> {
        let mut out = HashMap::default();
        // A platform's stock main file (not in the tree) says nothing of what else loads.
        let mains: Vec<&NginxInstance> = self
            .nginx
            .iter()
            .filter(|i| !i.standalone && !i.config.files[0].source.synthetic)
            .collect();
        let followed = mains.iter().all(|m| {
            m.config.problems.iter().all(|p| {
                !matches!(
                    p.kind,
                    nginx::LoadProblemKind::Unmapped { .. }
                        | nginx::LoadProblemKind::Refused { .. }
                )
            })
        });
        // Only a standalone configuration can be unloaded: without one, the sets below (every
        // path of the stack hashed twice) are not built.
        let standalone = self.nginx.iter().any(|i| i.standalone);
        if !mains.is_empty() && followed && standalone {
            let read: HashSet<&Path> = mains
                .iter()
                .flat_map(|m| m.config.files.iter().map(|f| f.source.path.as_path()))
                .collect();
            // `sites-enabled/` beside `sites-available/`: what is not linked there was left
            // out on purpose.
            let enabled_dirs: HashSet<&Path> = read
                .iter()
                .filter_map(|p| p.parent())
                .filter(|d| d.file_name().is_some_and(|n| n == "sites-enabled"))
                .filter_map(|d| d.parent())
                .collect();
            // Commented-out includes in any nginx file of the tree count, the standalone ones
            // too: a site template the installer enables (`sites-available/your-domain.conf`)
            // that names `#include globals/map-google-sitemap.conf;` makes that file an
            // option left off.
            let all: Vec<&NginxInstance> = self.nginx.iter().collect();
            let commented = commented_includes(&all);
            // ...unless another file of the tree includes it for real (a template's own
            // `include globals/php-fpm.conf;` beside another's commented-out one).
            let included: HashSet<&Path> = self
                .nginx
                .iter()
                .flat_map(|i| i.config.files.iter().skip(1))
                .map(|f| f.source.path.as_path())
                .collect();
            for i in self.nginx.iter().filter(|i| i.standalone) {
                for f in &i.config.files {
                    let path = f.source.path.as_path();
                    if read.contains(path) {
                        continue;
                    }
                    let dir = path.parent();
                    let disabled = dir.is_some_and(|d| {
                        d.file_name().is_some_and(|n| n == "sites-available")
                            && d.parent().is_some_and(|up| enabled_dirs.contains(up))
                    });
                    let stock = path
                        .file_name()
                        .is_some_and(|n| STOCK_NGINX_FILES.iter().any(|s| n == *s));
                    // A copy kept in `old/` or `backup/`, or an alternative a file of the
                    // tree names in an `include` it has commented out: left out on purpose.
                    let stale = path.parent().is_some_and(|d| {
                        d.strip_prefix(&self.root)
                            .unwrap_or(d)
                            .iter()
                            .any(|c| STALE_DIRS.iter().any(|s| c.eq_ignore_ascii_case(s)))
                    });
                    let switched_off = !included.contains(path)
                        && path
                            .file_name()
                            .is_some_and(|n| commented.contains(n.as_encoded_bytes()));
                    let why = if disabled || stock || stale || switched_off {
                        Unloaded::Disabled
                    } else {
                        Unloaded::Unused
                    };
                    out.insert(path, why);
                }
            }
        }
        if !self.lone_pools_run() {
            let read: HashSet<&Path> = self
                .fpm
                .iter()
                .filter(|c| c.has_master)
                .flat_map(|c| c.files.iter().map(|f| f.source.path.as_path()))
                .collect();
            for c in self.fpm.iter().filter(|c| !c.has_master) {
                for f in &c.files {
                    if !read.contains(f.source.path.as_path()) {
                        out.insert(f.source.path.as_path(), Unloaded::Unused);
                    }
                }
            }
        }
        out
    }

    /// Every source of the stack with its language, and its tree when it is an nginx file.
    pub fn sources(
        &self,
    ) -> Vec<(
        crate::source::Shared,
        super::discover::FileKind,
        Option<&crate::syntax::nginx::Tree>,
    )> {
        use super::discover::FileKind;
        let mut out: Vec<_> = self
            .nginx_files()
            .into_iter()
            .map(|f| (f.source.clone(), FileKind::Nginx, Some(&f.parsed.tree)))
            .collect();
        out.extend(
            self.fpm_files()
                .into_iter()
                .map(|f| (f.source.clone(), FileKind::FpmPool, None)),
        );
        out.extend(
            self.sysctl
                .files
                .iter()
                .map(|f| (f.source.clone(), FileKind::Sysctl, None)),
        );
        out.extend(
            self.php_ini_files()
                .map(|f| (f.source.clone(), FileKind::PhpIni, None)),
        );
        out
    }

    /// Every php.ini file of the stack.
    pub fn php_ini_files(&self) -> impl Iterator<Item = &super::php_ini::IniFile> {
        self.php_ini.sets.iter().flat_map(|s| s.files.iter())
    }

    /// Number of distinct files read.
    pub fn file_count(&self) -> usize {
        self.nginx_files().len()
            + self.fpm_files().len()
            + self.sysctl.files.len()
            + self.php_ini_files().count()
    }

    /// Every file read for this stack, for `lemplint stack` and for pre-commit filtering.
    pub fn nginx_paths(&self) -> impl Iterator<Item = &Path> {
        self.nginx
            .iter()
            .flat_map(|i| i.config.files.iter().map(|f| f.source.path.as_path()))
    }
}

/// Each file of the configurations once (by path), in order.
fn distinct_files(nginx: &[NginxInstance]) -> Vec<(usize, FileId)> {
    let mut seen = HashSet::default();
    let mut out = Vec::new();
    for (i, inst) in nginx.iter().enumerate() {
        for id in inst.config.ids() {
            if seen.insert(inst.config.file(id).source.path.as_path()) {
                out.push((i, id));
            }
        }
    }
    out
}

/// Files some configuration already read, by the path it was read under (most lookups: no
/// stat needed) and by identity (a symlink, another spelling).
#[derive(Default)]
struct Claimed {
    paths: HashSet<PathBuf>,
    keys: HashSet<FileKey>,
}

impl Claimed {
    fn add(&mut self, path: &Path, key: FileKey) {
        self.paths.insert(path.to_path_buf());
        self.keys.insert(key);
    }

    fn has(&self, fs: &dyn Fs, path: &Path) -> bool {
        self.paths.contains(path) || self.keys.contains(&fs.identity(path))
    }

    fn nginx(&mut self, fs: &dyn Fs, config: &NginxConfig) {
        for f in &config.files {
            self.add(&f.source.path, f.identity.clone());
        }
        // A dump's sections are not on disk: the dump itself is what was read.
        if let Some(m) = config.files.first().and_then(|f| f.source.member.as_ref()) {
            self.add(&m.container, fs.identity(&m.container));
        }
        // A file an include could not read is that include's finding (NGX020), not a
        // second one of its own.
        for p in &config.problems {
            if let nginx::LoadProblemKind::Unreadable { path, .. }
            | nginx::LoadProblemKind::IncludeNotFound { path, .. } = &p.kind
            {
                self.keys.insert(fs.identity(path));
            }
        }
    }

    fn fpm(&mut self, fs: &dyn Fs, cfg: &super::fpm::FpmConfig) {
        // An image's own files are not in the tree: never looked up on this machine.
        for f in cfg.files.iter().filter(|f| !f.source.synthetic) {
            self.add(&f.source.path, fs.identity(&f.source.path));
        }
    }
}

/// What each file of a stack is, decided by evidence: what an nginx configuration includes
/// is nginx, what a php-fpm master includes is php-fpm, whatever the files are named. Names
/// and directories (the discovery's guess) decide only for files nothing includes. So:
/// nginx entry points first (an `nginx.conf` another one includes is not an entry point),
/// then php-fpm masters, then the nginx files nothing read, the pool files no master read,
/// and the sysctl files nothing read.
struct Roles<'a> {
    fs: &'a dyn Fs,
    files: &'a StackFiles,
    opts: &'a BuildOptions,
    claimed: Claimed,
    unreadable: Vec<Unread>,
    /// Files found but deliberately not linted, with why (templates).
    skipped: Vec<(PathBuf, String)>,
}

impl Roles<'_> {
    fn load_opts(&self, path: &Path) -> LoadOptions {
        LoadOptions {
            prefix: self.opts.prefix.clone(),
            root: self
                .opts
                .root
                .clone()
                .or_else(|| super::paths::detect_root(path)),
            single_file: false,
            max_files: 0,
        }
    }

    /// Reads an nginx file that nothing includes, to lint it as an entry point or on its own.
    /// Placeholders are holes (see [`crate::syntax::template`]); a template whose
    /// conditionals cannot be read both ways is skipped, since it is not configuration
    /// until rendered, and the stack lists it. A file the user named is read whatever it
    /// holds.
    fn load_entry(&mut self, path: &Path, opts: &LoadOptions) -> Option<NginxConfig> {
        match self.load(path, opts) {
            Ok(c)
                if c.files[0].source.member.is_none()
                    && !self.files.explicit.iter().any(|p| p == path)
                    && crate::syntax::template::needs_rendering(
                        &c.files[0].source.holes,
                        c.files[0].parsed.errors.len(),
                    ) =>
            {
                self.skipped.push((
                    path.to_path_buf(),
                    "a template whose conditionals must be rendered to be read".into(),
                ));
                None
            }
            Ok(c) => Some(c),
            Err(e) => {
                self.unreadable.push(Unread::new(path, &e));
                None
            }
        }
    }

    /// Reads an nginx file and what it includes; an `nginx -T` dump committed to the
    /// repository (whatever its name) is the tree of files it holds, its includes resolved
    /// inside it, and its findings placed at its own lines.
    fn load(&self, path: &Path, opts: &LoadOptions) -> std::io::Result<NginxConfig> {
        let head = self.fs.head(path, super::discover::SNIFF_BYTES)?;
        if !super::fs::DumpFs::looks_like_dump(&head) {
            return nginx::load(self.fs, path, opts);
        }
        let dump_source = self.fs.source(path).1?;
        let (dump, order) = super::fs::DumpFs::parse(&dump_source.text);
        let Some(first) = order.first() else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "an nginx -T dump that holds no file",
            ));
        };
        let main = crate::source::SourceFile::new(first.clone(), dump.files[first].clone());
        let opts = LoadOptions {
            prefix: first.parent().map(Path::to_path_buf),
            root: None,
            single_file: false,
            max_files: 0,
        };
        let mut config = nginx::load_from(&dump, main, &opts);
        for f in &mut config.files {
            let start = dump.starts.get(&f.source.path).copied().unwrap_or(0);
            let before = &dump_source.text[..start.min(dump_source.text.len())];
            let mut source = (*f.source).clone();
            let name = source.path.clone();
            // Each dump's sections are its own: two dumps of one server hold the same paths.
            source.path = super::paths::under_root(&dump_source.path, &name);
            source.member = Some(crate::source::Member {
                container: dump_source.path.clone(),
                name,
                lines_before: memchr::memchr_iter(b'\n', before).count() as u32,
            });
            f.source = crate::source::Shared::new(source);
        }
        Ok(config)
    }

    /// The `nginx.conf` files no other `nginx.conf` includes (docker images ship snippets
    /// named `nginx.conf`, included by the real one), with everything they include.
    fn nginx_entry_points(&mut self) -> Vec<NginxInstance> {
        let mains: Vec<&PathBuf> = self.files.nginx.iter().filter(|p| is_main(p)).collect();
        let mut loaded: Vec<(FileKey, NginxConfig)> = Vec::new();
        for path in mains {
            let opts = self.load_opts(path);
            if let Some(config) = self.load_entry(path, &opts) {
                loaded.push((config.files[0].identity.clone(), config));
            }
        }
        // Which main reads which (a fleet has a thousand: by identity, not pair by pair).
        let index: HashMap<&FileKey, usize> = loaded
            .iter()
            .enumerate()
            .map(|(i, (k, _))| (k, i))
            .collect();
        let mut edges: HashSet<(usize, usize)> = HashSet::default();
        for (i, (_, config)) in loaded.iter().enumerate() {
            for f in config.files.iter().skip(1) {
                if let Some(&j) = index.get(&f.identity) {
                    edges.insert((i, j));
                }
            }
        }
        // Dropped: a main another reaches, unless it reaches that one back (a cycle keeps
        // both, and the cycle is reported).
        let mut keep = vec![true; loaded.len()];
        for &(i, j) in &edges {
            if i != j && !edges.contains(&(j, i)) {
                keep[j] = false;
            }
        }
        let mut out = Vec::new();
        for ((_, config), keep) in loaded.into_iter().zip(keep) {
            if keep {
                self.claimed.nginx(self.fs, &config);
                out.push(config_instance(config, false));
            }
        }
        out
    }

    /// The php-fpm masters nginx did not read.
    fn fpm_masters(&mut self) -> Vec<super::fpm::FpmConfig> {
        let mut out = Vec::new();
        for m in &self.files.fpm_masters {
            if self.claimed.has(self.fs, m) {
                continue;
            }
            match super::fpm::load(self.fs, m, self.opts.root.clone(), true) {
                Ok(mut cfg) => {
                    self.claimed.fpm(self.fs, &cfg);
                    // Named like a master but holding only pool settings (an override a
                    // container merges into its real pool, `.docksal/etc/php/php-fpm.conf`):
                    // a pool file, whose missing settings its master may supply.
                    cfg.has_master = reads_like_master(&cfg);
                    out.push(cfg);
                }
                Err(e) => self.unreadable.push(Unread::new(m, &e)),
            }
        }
        out
    }

    /// With no nginx main configuration in the tree: the fragments of each `conf.d/` or
    /// `http.d/` directory read inside the platform's stock main file (see
    /// [`super::platform`]), with what `lemplint stack` says of that file.
    fn platform_mains(&mut self) -> (Vec<NginxInstance>, Vec<(PathBuf, String)>) {
        use super::platform::{self, Platform};
        let mut groups: std::collections::BTreeMap<PathBuf, Vec<PathBuf>> = Default::default();
        for p in self.files.nginx.iter().filter(|p| !is_main(p)) {
            let Some(dir) = p.parent() else { continue };
            // The stock files include `*.conf`.
            let conf = p.extension().is_some_and(|e| e == "conf");
            if !conf || Platform::of_dir(dir).is_none() || self.claimed.has(self.fs, p) {
                continue;
            }
            if platform::is_http_fragment(self.fs, p) {
                groups.entry(dir.to_path_buf()).or_default().push(p.clone());
            }
        }
        let (mut out, mut why) = (Vec::new(), Vec::new());
        for (dir, fragments) in groups {
            let Some(platform) = Platform::of_dir(&dir) else {
                continue;
            };
            let main = platform.main_file(&dir, &fragments);
            why.push((main.path.clone(), platform.describe().to_string()));
            let opts = LoadOptions {
                prefix: self
                    .opts
                    .prefix
                    .clone()
                    .or_else(|| dir.parent().map(Path::to_path_buf)),
                ..self.load_opts(&dir)
            };
            let config = nginx::load_from(self.fs, main, &opts);
            self.claimed.nginx(self.fs, &config);
            out.push(config_instance(config, false));
        }
        (out, why)
    }

    /// nginx files nothing read, each on its own; then only those no other one includes.
    fn nginx_standalone(&mut self) -> Vec<NginxInstance> {
        let fs = self.fs;
        let mut candidates: Vec<(FileKey, NginxConfig)> = Vec::new();
        // One file under two names (`sites-enabled/x` a link to `sites-available/x`, nothing
        // including either) is one configuration: the first name is kept.
        let mut seen: HashSet<FileKey> = HashSet::default();
        for p in self.files.nginx.iter().filter(|p| !is_main(p)) {
            if self.claimed.has(fs, p) {
                continue;
            }
            if !self.files.explicit.contains(p) && !looks_like_nginx(fs, p) {
                continue;
            }
            if !seen.insert(fs.identity(p)) {
                continue;
            }
            let o = LoadOptions {
                prefix: self.opts.prefix.clone().or_else(|| nearest_main_dir(p)),
                ..self.load_opts(p)
            };
            if let Some(c) = self.load_entry(p, &o) {
                candidates.push((fs.identity(p), c));
            }
        }
        let mut included_by_other: HashSet<FileKey> = HashSet::default();
        for (_, c) in &candidates {
            for f in c.files.iter().skip(1) {
                included_by_other.insert(f.identity.clone());
            }
        }
        let mut out = Vec::new();
        for (identity, config) in candidates {
            if !included_by_other.contains(&identity) {
                self.claimed.nginx(fs, &config);
                let standalone = !declares_main(&config);
                out.push(config_instance(config, standalone));
            }
        }
        out
    }

    /// Pool files a Dockerfile copies into a docker-library php-fpm image (see
    /// [`super::php_image`]), read inside the image's stock configuration, with what
    /// `lemplint stack` says of the image's files and of where each tree file goes.
    fn image_pools(&mut self) -> (Vec<super::fpm::FpmConfig>, Vec<(PathBuf, String)>) {
        use super::php_image::{image_pools, POOL_DIR};
        let (mut out, mut why) = (Vec::new(), Vec::new());
        for mut image in image_pools(self.fs, &self.files.deploy_scripts) {
            image
                .files
                .retain(|(p, _)| !self.claimed.has(self.fs, p) && self.fs.source(p).1.is_ok());
            if image
                .master
                .as_ref()
                .is_some_and(|p| self.claimed.has(self.fs, p))
            {
                image.master = None;
            }
            if image.files.is_empty() && image.master.is_none() {
                continue;
            }
            let cfg = super::fpm::load_image(self.fs, &image);
            self.claimed.fpm(self.fs, &cfg);
            for f in &cfg.files {
                let path = f.source.path.clone();
                let text = if image.master.as_ref() == Some(&path) {
                    format!(
                        "copied by the Dockerfile over {}'s own php-fpm.conf ({})",
                        image.image,
                        super::php_image::MASTER_PATH
                    )
                } else if !f.source.synthetic {
                    match image.files.iter().find(|(p, _)| *p == path) {
                        Some((_, name)) => {
                            format!(
                                "{} to {POOL_DIR}/{name} of {}",
                                if image.mounted.contains(&path) {
                                    "mounted by the compose file"
                                } else {
                                    "copied by the Dockerfile"
                                },
                                image.image
                            )
                        }
                        None => continue,
                    }
                } else if f.included_from.is_none() {
                    format!(
                        "not in the tree: {}'s own php-fpm.conf, which includes php-fpm.d/*.conf in name order",
                        image.image
                    )
                } else {
                    format!("not in the tree: {}'s own file", image.image)
                };
                why.push((path, text));
            }
            out.push(cfg);
        }
        (out, why)
    }

    /// Pool files no master read, each on its own.
    fn lone_pools(&mut self) -> Vec<super::fpm::FpmConfig> {
        let mut out = Vec::new();
        for p in &self.files.fpm_pools {
            if self.claimed.has(self.fs, p) {
                continue;
            }
            match super::fpm::load(self.fs, p, self.opts.root.clone(), false) {
                Ok(cfg) => {
                    self.claimed.fpm(self.fs, &cfg);
                    out.push(cfg);
                }
                Err(e) => self.unreadable.push(Unread::new(p, &e)),
            }
        }
        out
    }

    /// The sysctl files no other configuration read.
    fn sysctl_paths(&self) -> Vec<PathBuf> {
        self.files
            .sysctl
            .iter()
            .filter(|p| !self.claimed.has(self.fs, p))
            .cloned()
            .collect()
    }
}

/// Whether a php-fpm file named as a master shows a master's marks: a `[global]` section,
/// an `include`, or a global setting before the first pool.
fn reads_like_master(cfg: &super::fpm::FpmConfig) -> bool {
    use crate::syntax::fpm::{LineKind, GLOBAL_DIRECTIVES};
    let Some(main) = cfg.files.first() else {
        return false;
    };
    let src = &main.source.text;
    let file = &main.parsed.file;
    if file.xml || file.includes(src).next().is_some() {
        return true;
    }
    file.sections(src).iter().any(|s| {
        s.is_global
            || (s.header.is_none()
                && s.entries.iter().any(|&i| match &file.lines[i].kind {
                    LineKind::Entry(e) => {
                        let name = String::from_utf8_lossy(e.name_bytes(src)).to_ascii_lowercase();
                        GLOBAL_DIRECTIVES.iter().any(|(k, _)| *k == name)
                    }
                    _ => false,
                }))
    })
}

fn is_main(p: &Path) -> bool {
    p.file_name().is_some_and(|n| {
        let n = n.to_string_lossy();
        super::discover::template_stem(&n).unwrap_or(&n) == "nginx.conf"
    })
}

/// Whether a file nothing includes is a main configuration by its content, whatever its
/// name (`nginx-prod.conf`, `bad.conf` given to `nginx -c`): an `events` block at its top
/// level. nginx accepts `events` only in the main context, so no snippet included into
/// `http`, a server or a location holds one, and every configuration nginx starts from
/// must (`no "events" section in configuration`). Not in the directories whose files are
/// included into `http` or a server (`sites-available/`, `conf.d/` …): a main file kept
/// there is a leftover nginx never starts from, and is read as the snippet it sits among.
fn declares_main(config: &NginxConfig) -> bool {
    let Some(file) = config.files.first() else {
        return false;
    };
    let dir = file.source.path.parent().and_then(Path::file_name);
    if dir.is_some_and(|d| {
        ["sites-available", "sites-enabled", "conf.d", "snippets"]
            .iter()
            .any(|n| d == *n)
    }) {
        return false;
    }
    let (tree, src) = (&file.parsed.tree, &file.source.text);
    tree.children(crate::syntax::nginx::tree::ROOT).any(|id| {
        tree.directive(id)
            .is_some_and(|d| d.block().is_some() && tree.name(d).is(src, "events"))
    })
}

/// Files in nginx directories that nothing includes are linted on their own only when their
/// content reads like nginx: a collectd or shell script kept beside the configs (as in many
/// repositories) is not ours to report on.
fn looks_like_nginx(fs: &dyn Fs, path: &Path) -> bool {
    fs.read(path)
        .map(|t| super::discover::sniff(&t) == Some(super::discover::FileKind::Nginx))
        .unwrap_or(true)
}

/// The directory of an `nginx.conf` next to or above `path` (up to the server root), else
/// the nearest directory named for nginx (`etc/nginx`): the prefix a snippet's relative
/// includes are written against (`include fastcgi_params;` in `etc/nginx/snippets/php.conf`
/// means `etc/nginx/fastcgi_params`).
fn nearest_main_dir(path: &Path) -> Option<PathBuf> {
    let near = || path.ancestors().skip(1).take(4);
    near()
        .find(|d| d.join("nginx.conf").is_file())
        .or_else(|| {
            near().find(|d| {
                d.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.contains("nginx") || n.contains("openresty"))
            })
        })
        .map(Path::to_path_buf)
}

/// A configuration as rules see it: its directives expanded (includes followed) once.
pub fn config_instance(config: NginxConfig, standalone: bool) -> NginxInstance {
    let t = std::time::Instant::now();
    let expanded = Expanded::build(&config);
    crate::timings::report(
        format_args!(
            "expand ({} files, {} directive occurrences)",
            config.files.len(),
            expanded.occurrences.len()
        ),
        t,
    );
    NginxInstance {
        id: Default::default(),
        config,
        expanded,
        standalone,
        memo: Memo::default(),
        contexts: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commented_lines_are_found_once_each() {
        let text =
            b"# include a.conf;\nroot /x; # include b;\n  ## # include c.conf;\n#\n\tx\n#last";
        let lines: Vec<&[u8]> = commented_lines(text).collect();
        assert_eq!(
            lines,
            [
                &b"# include a.conf;"[..],
                b"  ## # include c.conf;",
                b"#",
                b"#last"
            ]
        );
        let names: Vec<Vec<u8>> = lines
            .into_iter()
            .filter_map(commented_include_name)
            .collect();
        assert_eq!(names, [b"a.conf".to_vec(), b"c.conf".to_vec()]);
    }
}
