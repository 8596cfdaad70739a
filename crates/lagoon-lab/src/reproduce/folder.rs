//! A results folder (`lagoon reproduce PAPER --out DIR`) is something researchers send each
//! other, and `--render-only` redraws one (issue 42). Two rules keep it inside itself:
//!
//! - names ([`path`]): every file name the folder's files give (a figure's SVG and CSV, a
//!   table's CSV) and every file Lagoon reads or writes there (notes.md, headlines.json, ...)
//!   is a plain file name resolved inside the folder: no directory part, no `..`, no absolute
//!   path, not a link to outside the folder. Anything else is refused, the name shown cut
//!   ([`shown`]).
//! - contents: every file is read with a size limit ([`read`]) and checked before anything is
//!   drawn from it (the checks are beside the types: `claims::HeadlinesFile::check`,
//!   `book::Manifest::check`, `book::Table::read`, `sensitivity::Search::check`); a bad file
//!   is named with its entry.
//!
//! Writes ([`replace`]) go to a new file renamed over the old name, so a link in the folder
//! (symbolic or hard) to a file elsewhere is replaced, never written through.

use anyhow::{anyhow, bail, Context, Result};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The longest file name a results folder may give, in bytes (most file systems' limit).
pub const MAX_NAME: usize = 255;
/// The largest JSON file read from a results folder (figures.json, headlines.json,
/// sensitivity.json; the committed ones are under 100 KB).
pub const MAX_JSON_BYTES: u64 = 16 << 20;
/// The largest CSV a figure, table or headline is read from (the committed ones are under
/// 1 MB), and the most cells it may have (about 50 bytes of memory each).
pub const MAX_CSV_BYTES: u64 = 16 << 20;
pub const MAX_CSV_CELLS: usize = 1 << 22;
/// How many characters of a refused name or an echoed value an error repeats.
const SHOWN_CHARS: usize = 80;

/// `s` as an error shows it: quoted with control characters escaped, cut after
/// [`SHOWN_CHARS`] characters with its length said (a 200 KB name is not echoed whole).
pub fn shown(s: &str) -> String {
    if s.chars().count() <= SHOWN_CHARS {
        format!("{s:?}")
    } else {
        let head: String = s.chars().take(SHOWN_CHARS).collect();
        format!("{head:?}... ({} bytes in all)", s.len())
    }
}

/// An error message from a parser that may quote its input (serde names an unknown variant
/// whole), cut to a line's length.
pub fn cut(msg: &str) -> String {
    const MAX: usize = 300;
    if msg.chars().count() <= MAX {
        msg.to_string()
    } else {
        let head: String = msg.chars().take(MAX).collect();
        format!("{head}... ({} bytes in all)", msg.len())
    }
}

/// Why `name` is not a plain file name, if it is not.
fn not_plain(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("an empty name")
    } else if name.len() > MAX_NAME {
        Some("longer than 255 bytes")
    } else if name.contains(['/', '\\']) {
        Some("has a directory part (or is an absolute path)")
    } else if name == "." || name == ".." {
        Some("names a directory")
    } else if name.chars().any(char::is_control) {
        Some("has a control character")
    } else {
        None
    }
}

/// [`path`]'s rule on the name alone: a plain file name.
pub fn check_name(name: &str) -> Result<()> {
    match not_plain(name) {
        Some(why) => bail!(
            "{}: {why}; a results folder names only plain files inside itself",
            shown(name)
        ),
        None => Ok(()),
    }
}

/// The one rule for a name read from (or written into) the results folder `dir`: a plain file
/// name, resolved inside the folder; an existing entry of that name that is a link must lead to
/// a file inside the folder. Returns its path.
pub fn path(dir: &Path, name: &str) -> Result<PathBuf> {
    check_name(name)?;
    let p = dir.join(name);
    if std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_dir()) {
        bail!("{}: a directory, not a regular file", p.display());
    }
    if std::fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_symlink()) {
        let inside = match (p.canonicalize(), dir.canonicalize()) {
            (Ok(target), Ok(d)) => target.parent() == Some(d.as_path()),
            _ => false,
        };
        if !inside {
            bail!(
                "{}: a link that leads outside the results folder {} (or nowhere)",
                p.display(),
                dir.display()
            );
        }
    }
    Ok(p)
}

/// Whether the folder has an entry called `name` (a plain name), of any kind: a file, or a
/// link, pipe or directory that reading it refuses by name rather than passing over.
pub fn has(dir: &Path, name: &str) -> bool {
    not_plain(name).is_none() && std::fs::symlink_metadata(dir.join(name)).is_ok()
}

/// The text of `dir/name`, at most `limit` bytes of UTF-8, through [`path`]'s rule; a
/// device, a pipe or a directory of that name is refused before it is opened.
pub fn read(dir: &Path, name: &str, limit: u64) -> Result<String> {
    let p = path(dir, name)?;
    let m = std::fs::metadata(&p).with_context(|| format!("cannot read {}", p.display()))?;
    if !m.is_file() {
        bail!("{}: not a regular file", p.display());
    }
    let too_big = |n: u64| {
        anyhow!(
            "{}: {n} bytes, more than the {limit} a results file may have",
            p.display()
        )
    };
    if m.len() > limit {
        return Err(too_big(m.len()));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(&p)
        .and_then(|f| f.take(limit + 1).read_to_end(&mut bytes))
        .with_context(|| format!("cannot read {}", p.display()))?;
    if bytes.len() as u64 > limit {
        return Err(too_big(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|e| {
        anyhow!(
            "{}: not UTF-8 text (byte {})",
            p.display(),
            e.utf8_error().valid_up_to()
        )
    })
}

/// [`read`], None when the folder has no entry of that name.
pub fn read_if_there(dir: &Path, name: &str, limit: u64) -> Result<Option<String>> {
    let p = path(dir, name)?;
    if std::fs::symlink_metadata(&p).is_err() {
        return Ok(None);
    }
    read(dir, name, limit).map(Some)
}

/// `dir/name` parsed as JSON (at most [`MAX_JSON_BYTES`]); a parse error names the file and
/// its line, cut to a line's length.
pub fn read_json<T: serde::de::DeserializeOwned>(dir: &Path, name: &str) -> Result<T> {
    let text = read(dir, name, MAX_JSON_BYTES)?;
    serde_json::from_str(&text)
        .map_err(|e| anyhow!("{}: {}", dir.join(name).display(), cut(&e.to_string())))
}

/// `dir/name` parsed ([`read_json`]) and checked by `check` (a type's rule for what it must
/// hold to be drawn from); a failed check names the file.
pub fn read_checked<T: serde::de::DeserializeOwned>(
    dir: &Path,
    name: &str,
    check: impl FnOnce(&T) -> Result<()>,
) -> Result<T> {
    let t: T = read_json(dir, name)?;
    check(&t).map_err(|e| anyhow!("{}: {e:#}", dir.join(name).display()))?;
    Ok(t)
}

/// The folder's own notes (notes.md, written by hand; at most `limit` bytes), if it has them.
pub fn notes(dir: &Path, limit: u64) -> Result<Option<String>> {
    read_if_there(dir, NOTES, limit)
}

/// The name of a results folder's hand-written notes.
pub const NOTES: &str = "notes.md";

/// Write `text` as `dir/name` through [`path`]'s rule ([`replace`]).
pub fn write(dir: &Path, name: &str, text: &str) -> Result<()> {
    replace(&path(dir, name)?, text)
}

/// Write `text` at `p` as a new file renamed over `p`: a link at `p` is replaced, never
/// written through, and a reader never sees half a file.
pub fn replace(p: &Path, text: &str) -> Result<()> {
    use std::io::Write;
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = p.parent().filter(|d| !d.as_os_str().is_empty());
    let dir = dir.unwrap_or(Path::new("."));
    if std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir()) {
        bail!("cannot write {}: a directory", p.display());
    }
    let (tmp, mut f) = loop {
        let tmp = dir.join(format!(
            ".lagoon-{}-{}.tmp",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        // create_new: never opens an existing file (or a link) of that name.
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot write {}", p.display())),
        }
    };
    let done = f
        .write_all(text.as_bytes())
        .and_then(|()| f.flush())
        .and_then(|()| std::fs::rename(&tmp, p));
    if let Err(e) = done {
        let _ = std::fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("cannot write {}", p.display()));
    }
    Ok(())
}

/// A relative path in the repository as a results file names one (a headline's evidence
/// file, shown as a link from the repository's root): plain components only, no `..`, not
/// absolute, at most 255 bytes.
pub fn check_repo_path(p: &str) -> std::result::Result<(), String> {
    let ok = !p.is_empty()
        && p.len() <= MAX_NAME
        && !p.starts_with('/')
        && p.split('/').all(|c| not_plain(c).is_none())
        && p.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-/".contains(c));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{}: not a relative path in the repository (letters, digits, . _ - and /, no ..)",
            shown(p)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_names_inside_the_folder_pass() {
        let d = tempfile::tempdir().unwrap();
        for ok in ["fig13.svg", "a b.csv", ".hidden.csv", "naïve.csv"] {
            assert_eq!(path(d.path(), ok).unwrap(), d.path().join(ok));
        }
        let long = "x".repeat(200_000);
        for bad in [
            "",
            ".",
            "..",
            "../victim.txt",
            "/etc/hostname",
            "a/b.csv",
            "..\\x.csv",
            "x\n.csv",
            "x\0.csv",
            long.as_str(),
        ] {
            let e = path(d.path(), bad).unwrap_err().to_string();
            assert!(e.len() < 300, "{} bytes: {e}", e.len());
        }
        let e = path(d.path(), &long).unwrap_err().to_string();
        assert!(e.contains("(200000 bytes in all)"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_to_outside_is_refused_and_replaced_never_written_through() {
        use std::os::unix::fs::symlink;
        let root = tempfile::tempdir().unwrap();
        let (dir, outside) = (root.path().join("r"), root.path().join("victim.txt"));
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(&outside, "keep").unwrap();
        std::fs::write(dir.join("in.csv"), "a\n1\n").unwrap();
        symlink(&outside, dir.join("out.csv")).unwrap();
        symlink("in.csv", dir.join("alias.csv")).unwrap();
        symlink("nowhere", dir.join("dangling.svg")).unwrap();
        assert!(read(&dir, "out.csv", 100)
            .unwrap_err()
            .to_string()
            .contains("leads outside"));
        assert!(write(&dir, "out.csv", "x").is_err());
        assert!(write(&dir, "dangling.svg", "x").is_err());
        assert!(!dir.join("nowhere").exists());
        assert_eq!(read(&dir, "alias.csv", 100).unwrap(), "a\n1\n");
        // A file renamed over a link replaces the link, not what it points at.
        replace(&dir.join("out.csv"), "new").unwrap();
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep");
        assert_eq!(std::fs::read_to_string(dir.join("out.csv")).unwrap(), "new");
        // A hard link to a file elsewhere is replaced too.
        std::fs::hard_link(&outside, dir.join("hard.svg")).unwrap();
        write(&dir, "hard.svg", "drawn").unwrap();
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep");
        // Sizes and kinds: refused before reading.
        assert!(read(&dir, "in.csv", 3)
            .unwrap_err()
            .to_string()
            .contains("more than the 3"));
        std::fs::create_dir(dir.join("d.csv")).unwrap();
        assert!(read(&dir, "d.csv", 100)
            .unwrap_err()
            .to_string()
            .contains("not a regular file"));
        assert_eq!(read_if_there(&dir, "none.md", 100).unwrap(), None);
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }

    #[test]
    fn repository_paths_are_plain_and_relative() {
        assert!(check_repo_path("docs/results/sensitivity/piq/summary.md").is_ok());
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../../b",
            "a//b",
            "javascript:x()",
        ] {
            assert!(check_repo_path(bad).is_err(), "{bad}");
        }
    }
}
