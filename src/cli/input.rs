//! Reading what the user pointed at: a path, `-` for standard input, or an `nginx -T` dump.

use crate::source::SourceFile;
use crate::stack::fs::{DumpFs, Fs, RealFs};
use std::path::{Path, PathBuf};

/// The main file and the file system its includes are read from.
pub struct Input {
    pub main: SourceFile,
    pub fs: Box<dyn Fs>,
    /// True when the input was an `nginx -T` dump (includes resolve inside the dump).
    pub is_dump: bool,
}

/// Display name for standard input.
pub const STDIN_NAME: &str = "<stdin>";

/// Whether `path` names standard input.
pub fn is_stdin(path: &Path) -> bool {
    path == Path::new("-")
}

/// Reads `path` (or standard input) through `fs`, the file system confined to the tree.
pub fn read(path: &Path, fs: &RealFs) -> Result<SourceFile, String> {
    if is_stdin(path) {
        let buf = crate::stack::fs::read_stdin()
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        return Ok(SourceFile::new(PathBuf::from(STDIN_NAME), buf));
    }
    let loaded = fs.load(path).1.map_err(|e| {
        let why = match crate::stack::confine::refusal(&e) {
            Some(r) => r.describe().to_string(),
            None => crate::stack::nginx::io_message(&e),
        };
        format!("cannot read {}: {why}", crate::escape::path(path))
    })?;
    let mut source = SourceFile::new(path, loaded.text).with_stamp(loaded.stamp);
    source.through_link = loaded.through_link;
    Ok(source)
}

/// `main` as an nginx input: an `nginx -T` dump is the tree of files it holds; anything
/// else is a main file whose includes are read through `fs`.
pub fn nginx(main: SourceFile, fs: RealFs) -> Result<Input, String> {
    if DumpFs::looks_like_dump(&main.text) {
        let (dump, order) = DumpFs::parse(&main.text);
        let Some(first) = order.first() else {
            return Err(format!(
                "{}: empty nginx -T dump",
                crate::escape::path(&main.path)
            ));
        };
        let main = SourceFile::new(first.clone(), dump.files[first].clone());
        return Ok(Input {
            main,
            fs: Box::new(dump),
            is_dump: true,
        });
    }
    Ok(Input {
        main,
        fs: Box::new(fs),
        is_dump: false,
    })
}
