//! Where the commands write: standard output (`-` wherever a path is taken) or a file. Every
//! write is checked (`trace convert -o /dev/full` fails), a file is written under a
//! temporary name beside it and renamed only when complete (an interrupted or failed command
//! leaves nothing that looks finished), and every output path is checked before the first
//! simulation ([`check`]). A destination that is not a regular file (a device such as
//! `/dev/null`, a FIFO) is written in place and never removed.

use anyhow::{bail, Context, Result};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// `println!` that returns an error instead of panicking when standard output fails.
#[macro_export]
macro_rules! outln {
    () => { $crate::out::stdout_text("\n") };
    ($($t:tt)*) => { $crate::out::stdout_text(&format!("{}\n", format!($($t)*))) };
}

/// `print!` likewise.
#[macro_export]
macro_rules! out {
    ($($t:tt)*) => { $crate::out::stdout_text(&format!($($t)*)) };
}

/// Write `text` to standard output and flush it, checking both.
pub fn stdout_text(text: &str) -> Result<()> {
    let mut o = std::io::stdout().lock();
    o.write_all(text.as_bytes())
        .and_then(|()| o.flush())
        .context("cannot write to standard output")
}

/// Whether a path argument means standard output.
pub fn is_stdout(p: &Path) -> bool {
    p.as_os_str() == "-"
}

/// What a path argument names, checked: standard output, a special file written in place,
/// or a regular file to write through a temporary one.
enum Dest {
    Stdout,
    Special(PathBuf),
    Regular(PathBuf),
}

fn dest(p: &Path, flag: &str) -> Result<Dest> {
    if is_stdout(p) {
        return Ok(Dest::Stdout);
    }
    if p.as_os_str().is_empty() {
        bail!("{flag}: an empty path (give a file name, or - for standard output)");
    }
    match std::fs::metadata(p) {
        Ok(m) if m.is_dir() => bail!("{flag} {}: is a directory, not a file", p.display()),
        Ok(m) if !m.is_file() => return Ok(Dest::Special(p.to_path_buf())),
        _ => {}
    }
    let parent = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !parent.is_dir() {
        bail!(
            "{flag} {}: the directory {} does not exist",
            p.display(),
            parent.display()
        );
    }
    Ok(Dest::Regular(p.to_path_buf()))
}

/// The temporary name a regular file is written under before its rename.
fn tmp_of(p: &Path) -> PathBuf {
    let name = p
        .file_name()
        .map_or("output".into(), |n| n.to_string_lossy().into_owned());
    p.with_file_name(format!(".{name}.partial-{}", std::process::id()))
}

/// Check an output path before any work: `-`, a special file that can be opened for
/// writing, or a file in an existing directory where a file can be created. `flag` names
/// it in the error.
pub fn check(p: &Path, flag: &str) -> Result<()> {
    match dest(p, flag)? {
        Dest::Stdout => Ok(()),
        Dest::Special(d) => std::fs::OpenOptions::new()
            .write(true)
            .open(&d)
            .map(drop)
            .with_context(|| format!("{flag} {}: cannot write", d.display())),
        Dest::Regular(d) => {
            let t = tmp_of(&d);
            File::create(&t).with_context(|| format!("{flag} {}: cannot write", d.display()))?;
            let _ = std::fs::remove_file(&t);
            if d.exists() {
                std::fs::OpenOptions::new()
                    .append(true)
                    .open(&d)
                    .map(drop)
                    .with_context(|| format!("{flag} {}: cannot write", d.display()))?;
            }
            Ok(())
        }
    }
}

/// An output being written: [`Output::commit`] makes it appear at its name; dropped
/// uncommitted, the temporary file is removed and the destination left as it was.
pub struct Output {
    w: Option<BufWriter<Box<dyn Write + Send>>>,
    /// (temporary, destination) of a regular file.
    rename: Option<(PathBuf, PathBuf)>,
    name: String,
}

impl Output {
    /// Open `p` (`-`: standard output) for writing; `flag` names it in errors.
    pub fn create(p: &Path, flag: &str) -> Result<Output> {
        let (w, rename, name): (Box<dyn Write + Send>, _, _) = match dest(p, flag)? {
            Dest::Stdout => (
                Box::new(std::io::stdout()),
                None,
                "standard output".to_string(),
            ),
            Dest::Special(d) => (
                Box::new(
                    std::fs::OpenOptions::new()
                        .write(true)
                        .open(&d)
                        .with_context(|| format!("{flag} {}: cannot write", d.display()))?,
                ),
                None,
                d.display().to_string(),
            ),
            Dest::Regular(d) => {
                let t = tmp_of(&d);
                let f = File::create(&t)
                    .with_context(|| format!("{flag} {}: cannot write", d.display()))?;
                let name = d.display().to_string();
                (Box::new(f), Some((t, d)), name)
            }
        };
        Ok(Output {
            w: Some(BufWriter::with_capacity(1 << 16, w)),
            rename,
            name,
        })
    }

    /// What it writes to, for messages ("standard output" or the path).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Flush everything and give the file its name; every error is reported.
    pub fn commit(mut self) -> Result<()> {
        let w = self.w.take().expect("written once");
        let mut inner = w
            .into_inner()
            .map_err(|e| anyhow::anyhow!("cannot write {}: {}", self.name, e.error()))?;
        inner
            .flush()
            .with_context(|| format!("cannot write {}", self.name))?;
        drop(inner);
        if let Some((t, d)) = self.rename.take() {
            std::fs::rename(&t, &d).with_context(|| format!("cannot write {}", d.display()))?;
        }
        Ok(())
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.w.as_mut().expect("not committed").write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.w.as_mut().expect("not committed").flush()
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Some((t, _)) = &self.rename {
            let _ = std::fs::remove_file(t);
        }
    }
}

/// Write `bytes` to `p` (`-`: standard output) completely, or fail and leave `p` as it was.
pub fn write(p: &Path, flag: &str, bytes: &[u8]) -> Result<()> {
    let mut o = Output::create(p, flag)?;
    o.write_all(bytes)
        .with_context(|| format!("cannot write {}", o.name()))?;
    o.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_appears_only_when_committed_and_errors_are_reported() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("a.csv");
        let mut o = Output::create(&p, "--out").unwrap();
        o.write_all(b"x,y\n").unwrap();
        assert!(!p.exists(), "not before commit");
        o.commit().unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"x,y\n");
        // Dropped uncommitted: the old content stays, no temporary is left.
        let mut o = Output::create(&p, "--out").unwrap();
        o.write_all(b"new").unwrap();
        drop(o);
        assert_eq!(std::fs::read(&p).unwrap(), b"x,y\n");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
        let e = check(&d.path().join("no/such/f.json"), "--json").unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
        let e = check(d.path(), "--cdf").unwrap_err();
        assert!(e.to_string().contains("is a directory"), "{e}");
        assert!(check(Path::new("-"), "--json").is_ok());
        if Path::new("/dev/full").exists() {
            let e = write(Path::new("/dev/full"), "-o", &[b'x'; 100_000]).unwrap_err();
            assert!(format!("{e:#}").contains("No space left"), "{e:#}");
            assert!(Path::new("/dev/full").exists(), "a device is never removed");
        }
    }
}
