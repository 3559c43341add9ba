//! NGX184 ssl-seclevel-lowered: see the crate comment in main.rs.

use super::*;

/// The security level in `ssl_ciphers` decides what nginx loads (OpenSSL's
/// `SSL_CTX_set_security_level`, 3.0: level 1 is 80 bits and refuses "signatures using SHA1
/// and MD5"; level 0 permits the rest, but `ssl_security_default_callback` keeps DH groups
/// under 1024 bits out "even at level 0"). The table is what `nginx -t` says with no level,
/// level 2, 1 and 0; this OpenSSL's default is Debian's 2. Then a running nginx negotiates
/// a 1024-bit DH group at level 1 and a 512-bit RSA key at level 0 with a client that lowers
/// its own level too, and lemplint reports the lowered strings (0 a warning, 1 info).
#[test]
fn seclevel_decides_which_weak_keys_nginx_loads_and_negotiates() {
    let Some(nginx) = common::required_nginx("tests/hardening_binary/") else {
        return;
    };
    let tmp = prefix();
    let p = tmp.path();
    let Some((c2048, k2048)) = self_signed(p, "rsa2048", 2048) else {
        return;
    };
    let (c1024, k1024) = self_signed(p, "rsa1024", 1024).unwrap();
    let (c512, k512) = self_signed(p, "rsa512", 512).unwrap();
    // A leaf signed with SHA-1 and one with MD5 by a CA of its own.
    let (ca, ca_key) = self_signed(p, "ca", 2048).unwrap();
    let leaf_key = p.join("leaf.key");
    let csr = p.join("leaf.csr");
    let (ok, out) = openssl(
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-subj",
            "/CN=t",
            "-keyout",
            leaf_key.to_str().unwrap(),
            "-out",
            csr.to_str().unwrap(),
        ],
        None,
    )
    .unwrap();
    assert!(ok, "{out}");
    let leaf = |md: &str| {
        let cert = p.join(format!("leaf-{md}.pem"));
        let (ok, out) = openssl(
            &[
                "x509",
                "-req",
                "-in",
                csr.to_str().unwrap(),
                "-CA",
                ca.to_str().unwrap(),
                "-CAkey",
                ca_key.to_str().unwrap(),
                "-CAcreateserial",
                "-days",
                "2",
                &format!("-{md}"),
                "-out",
                cert.to_str().unwrap(),
            ],
            None,
        )
        .unwrap();
        assert!(ok, "{out}");
        cert
    };
    let (sha1, md5) = (leaf("sha1"), leaf("md5"));
    // The DH groups NGX183's fixtures hold (generated once with `openssl dhparam N`).
    let groups = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/nginx/NGX183/groups");
    let dh = |bits: u32| {
        format!(
            "ssl_dhparam {};",
            groups.join(format!("dh{bits}.pem")).display()
        )
    };
    let cert = |c: &Path, k: &Path| {
        format!(
            "ssl_certificate {};\n        ssl_certificate_key {};",
            c.display(),
            k.display()
        )
    };
    let cases = [
        ("1024-bit RSA key", cert(&c1024, &k1024)),
        (
            "1024-bit DH group",
            format!("{}\n        {}", cert(&c2048, &k2048), dh(1024)),
        ),
        ("SHA-1 signed certificate", cert(&sha1, &leaf_key)),
        ("MD5 signed certificate", cert(&md5, &leaf_key)),
        ("512-bit RSA key", cert(&c512, &k512)),
        (
            "512-bit DH group",
            format!("{}\n        {}", cert(&c2048, &k2048), dh(512)),
        ),
    ];
    let levels = [
        "",
        "ssl_ciphers DEFAULT:@SECLEVEL=2;",
        "ssl_ciphers DEFAULT:@SECLEVEL=1;",
        "ssl_ciphers DEFAULT:@SECLEVEL=0;",
    ];
    let mut table = Vec::new();
    for (what, lines) in &cases {
        let mut row = Vec::new();
        for level in levels {
            let text = format!(
                "{head}    server {{\n        listen 127.0.0.1:{port} ssl;\n        {lines}\n        \
                 {level}\n    }}\n}}\n",
                head = head(p),
                port = free_port()
            );
            std::fs::write(p.join("nginx.conf"), &text).unwrap();
            let t = common::nginx_test(&nginx, p);
            let stderr = String::from_utf8_lossy(&t.stderr);
            // nginx's words for each refusal.
            let verdict = if t.status.success() {
                "loads"
            } else if stderr.contains("ee key too small") {
                "ee key too small"
            } else if stderr.contains("ca md too weak") {
                "ca md too weak"
            } else if stderr.contains("dh key too small") {
                "dh key too small"
            } else {
                panic!("{what} {level}: {stderr}")
            };
            row.push(verdict);
        }
        table.push((*what, row));
    }
    let want = [
        (
            "1024-bit RSA key",
            ["ee key too small", "ee key too small", "loads", "loads"],
        ),
        (
            "1024-bit DH group",
            ["dh key too small", "dh key too small", "loads", "loads"],
        ),
        (
            "SHA-1 signed certificate",
            [
                "ca md too weak",
                "ca md too weak",
                "ca md too weak",
                "loads",
            ],
        ),
        (
            "MD5 signed certificate",
            [
                "ca md too weak",
                "ca md too weak",
                "ca md too weak",
                "loads",
            ],
        ),
        (
            "512-bit RSA key",
            [
                "ee key too small",
                "ee key too small",
                "ee key too small",
                "loads",
            ],
        ),
        ("512-bit DH group", ["dh key too small"; 4]),
    ];
    let want: Vec<(&str, Vec<&str>)> = want.iter().map(|(w, r)| (*w, r.to_vec())).collect();
    assert_eq!(
        table, want,
        "columns: no @SECLEVEL (this OpenSSL's default), @SECLEVEL=2, 1, 0"
    );

    // The handshakes: a DHE-only server at level 1 with the 1024-bit group, a server at
    // level 0 with the 512-bit RSA key, and one at the default level.
    let (one, zero, default) = (free_port(), free_port(), free_port());
    let text = format!(
        "{head}    server {{\n        listen 127.0.0.1:{one} ssl;\n        {c2048}\n        {dh1024}\n        \
         ssl_protocols TLSv1.2;\n        ssl_ciphers DHE-RSA-AES128-GCM-SHA256:@SECLEVEL=1;\n        \
         return 200;\n    }}\n    server {{\n        listen 127.0.0.1:{zero} ssl;\n        {c512}\n        \
         ssl_ciphers DEFAULT:@SECLEVEL=0;\n        return 200;\n    }}\n    server {{\n        \
         listen 127.0.0.1:{default} ssl;\n        {c2048}\n        return 200;\n    }}\n}}\n",
        head = head(p),
        c2048 = cert(&c2048, &k2048),
        c512 = cert(&c512, &k512),
        dh1024 = dh(1024)
    );
    let conf = p.join("nginx.conf");
    std::fs::write(&conf, &text).unwrap();
    let _running = common::start_nginx_on(&nginx, p, &conf, &[one, zero, default]);
    let connect = |port: u16, cipher: Option<&str>| {
        let target = format!("127.0.0.1:{port}");
        let mut args = vec!["s_client", "-connect", &target];
        if let Some(c) = cipher {
            args.extend(["-cipher", c]);
        }
        openssl(&args, None).unwrap().1
    };
    // The client at its own default level refuses the 1024-bit group nginx offers at 1.
    let out = connect(one, None);
    assert!(out.contains("dh key too small"), "{out}");
    let out = connect(one, Some("DHE-RSA-AES128-GCM-SHA256:@SECLEVEL=1"));
    assert!(
        out.contains("Server Temp Key: DH, 1024 bits")
            && out.contains("Cipher is DHE-RSA-AES128-GCM-SHA256"),
        "{out}"
    );
    let out = connect(zero, Some("DEFAULT:@SECLEVEL=0"));
    assert!(
        out.contains("Server public key is 512 bit") && out.contains(", TLSv1.2, Cipher is ECDHE-"),
        "{out}"
    );

    let found = lint(&conf, "NGX184", "NGX184");
    assert_eq!(
        found,
        [
            (
                line_of(&text, "@SECLEVEL=1"),
                "info".to_string(),
                "NGX184".to_string()
            ),
            (
                line_of(&text, "@SECLEVEL=0"),
                "warning".to_string(),
                "NGX184".to_string()
            ),
        ]
    );
}
