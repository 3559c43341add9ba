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

pub fn read(path: &Path) -> Result<Input, String> {
    let (name, text) = if path == Path::new("-") {
        let buf = crate::stack::fs::read_stdin()
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        (PathBuf::from(STDIN_NAME), buf)
    } else {
        let fs = RealFs::default();
        let text = fs.read(path).map_err(|e| {
            format!(
                "cannot read {}: {}",
                path.display(),
                crate::stack::nginx::io_message(&e)
            )
        })?;
        (path.to_path_buf(), text)
    };
    if DumpFs::looks_like_dump(&text) {
        let (dump, order) = DumpFs::parse(&text);
        let Some(first) = order.first() else {
            return Err(format!("{}: empty nginx -T dump", name.display()));
        };
        let main = SourceFile::new(first.clone(), dump.files[first].clone());
        return Ok(Input {
            main,
            fs: Box::new(dump),
            is_dump: true,
        });
    }
    Ok(Input {
        main: SourceFile::new(name, text),
        fs: Box::new(RealFs::default()),
        is_dump: false,
    })
}
