//! Packed `dist/` directories: every compressible file stored once, as its Brotli
//! (`name.br`), which is what the server sends to browsers, decoded at start-up for the
//! rest (and gzipped there for the clients that take only gzip). `hearth-pack` writes one
//! (the Docker image ships it: 1.4 MB instead of 4.1), and [`read_dir`] reads packed and
//! plain directories alike, `name.gz` files too.
//!
//! A `name.br` or `name.gz` beside `name` is taken as `name`'s precompressed form only
//! when it decodes to exactly `name`'s bytes; a stale one is ignored and said in the log.
//! A `.gz` or `.br` whose inner name is not a compressible type (`backup.tar.gz`) is an
//! ordinary file.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use flate2::read::GzDecoder;

use super::{LoadError, content_type, is_compressible, walk};

/// The largest file a packed file may decode to (the whole app is a few MB).
pub const MAX_UNPACKED: u64 = 64 * 1024 * 1024;

/// One file's bytes, with its compressed forms when the directory holds them.
#[derive(Debug)]
pub struct Content {
    /// What is served without compression.
    pub body: Vec<u8>,
    /// What is served to clients that take gzip, when already known.
    pub gzip: Option<Vec<u8>>,
    /// What is served to clients that take Brotli, when the directory holds it.
    pub brotli: Option<Vec<u8>>,
}

/// A compressed form a directory may hold a file in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Coding {
    Brotli,
    Gzip,
}

impl Coding {
    const ALL: [Self; 2] = [Self::Brotli, Self::Gzip];

    fn suffix(self) -> &'static str {
        match self {
            Self::Brotli => ".br",
            Self::Gzip => ".gz",
        }
    }

    /// The decoded bytes, refused past [`MAX_UNPACKED`].
    fn decode(self, bytes: &[u8]) -> Result<Vec<u8>, String> {
        let reader: Box<dyn Read + '_> = match self {
            Self::Brotli => Box::new(brotli::Decompressor::new(bytes, 4096)),
            Self::Gzip => Box::new(GzDecoder::new(bytes)),
        };
        let mut out = Vec::new();
        reader
            .take(MAX_UNPACKED + 1)
            .read_to_end(&mut out)
            .map_err(|error| format!("not {} data ({error})", self.name()))?;
        if out.len() as u64 > MAX_UNPACKED {
            return Err(format!("decodes past {MAX_UNPACKED} bytes"));
        }
        Ok(out)
    }

    fn name(self) -> &'static str {
        match self {
            Self::Brotli => "Brotli",
            Self::Gzip => "gzip",
        }
    }
}

/// `relative`'s inner name and coding when it is the packed form of a compressible file.
fn packed_name(relative: &str) -> Option<(&str, Coding)> {
    Coding::ALL.into_iter().find_map(|coding| {
        relative
            .strip_suffix(coding.suffix())
            .filter(|inner| is_compressible(content_type(inner)))
            .map(|inner| (inner, coding))
    })
}

/// Every file under `dir` by its path relative to `dir` (`/`-separated), packed files
/// under their inner names.
pub fn read_dir(dir: &Path) -> Result<BTreeMap<String, Content>, LoadError> {
    let mut paths = Vec::new();
    walk(dir, dir, &mut paths)?;
    let mut plain = BTreeMap::new();
    let mut packed = Vec::new();
    for (relative, path) in paths {
        let bytes = std::fs::read(&path).map_err(|source| LoadError::Io {
            path: path.clone(),
            source,
        })?;
        match packed_name(&relative) {
            Some((inner, coding)) => packed.push((inner.to_string(), coding, path, bytes)),
            None => {
                plain.insert(relative, Content::plain(bytes));
            }
        }
    }
    // Brotli first, so a file held both ways takes its body from the first one decoded.
    packed.sort_by_key(|(inner, coding, ..)| (inner.clone(), *coding != Coding::Brotli));
    for (inner, coding, path, bytes) in packed {
        let decoded = coding.decode(&bytes).map_err(|reason| LoadError::Packed {
            path: path.clone(),
            reason,
        })?;
        let content = match plain.entry(inner) {
            Entry::Vacant(slot) => slot.insert(Content::plain(decoded)),
            Entry::Occupied(slot) if slot.get().body == decoded => slot.into_mut(),
            Entry::Occupied(_) => {
                tracing::warn!(
                    file = %path.display(),
                    "a packed file does not match the file it stands for; ignored"
                );
                continue;
            }
        };
        match coding {
            Coding::Brotli => content.brotli = Some(bytes),
            Coding::Gzip => content.gzip = Some(bytes),
        }
    }
    Ok(plain)
}

impl Content {
    fn plain(body: Vec<u8>) -> Self {
        Self {
            body,
            gzip: None,
            brotli: None,
        }
    }
}

/// `body` compressed with Brotli at its best (quality 11, a 4 MiB window).
fn brotli(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut writer = brotli::CompressorWriter::new(&mut out, 4096, 11, 22);
        // Writing to a Vec cannot fail.
        let _ = writer.write_all(body);
    }
    out
}

/// Why a directory could not be packed.
#[derive(Debug, thiserror::Error)]
pub enum PackError {
    /// The source could not be read (or is not a build).
    #[error(transparent)]
    Source(#[from] LoadError),
    /// The destination already holds files: packing never mixes with an old build.
    #[error("{0} already exists and is not empty: pack into a new directory")]
    NotEmpty(PathBuf),
    /// A file could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Reading the packed directory back did not give the source's files (a bug or a
    /// failing disk): nothing should ship from it.
    #[error("{0} does not read back as the source: {1}")]
    Mismatch(PathBuf, String),
}

/// What [`pack`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackReport {
    /// Files in the directory.
    pub files: usize,
    /// Of which stored as Brotli.
    pub packed: usize,
    /// The files' bytes as served without compression.
    pub bytes_in: u64,
    /// The bytes written.
    pub bytes_out: u64,
}

/// Writes `from` (a plain or packed build) into the new directory `to`, every
/// compressible file that Brotli makes smaller as `name.br` only, the rest as they are;
/// then reads `to` back and checks that it serves exactly `from`'s files.
pub fn pack(from: &Path, to: &Path) -> Result<PackReport, PackError> {
    let source = read_dir(from)?;
    if !source.contains_key("index.html") {
        return Err(LoadError::NotBuilt {
            dir: from.to_path_buf(),
        }
        .into());
    }
    if std::fs::read_dir(to).is_ok_and(|mut entries| entries.next().is_some()) {
        return Err(PackError::NotEmpty(to.to_path_buf()));
    }
    let mut report = PackReport {
        files: source.len(),
        packed: 0,
        bytes_in: 0,
        bytes_out: 0,
    };
    let compressed = compress_all(&source);
    for ((relative, content), compressed) in source.iter().zip(compressed) {
        report.bytes_in += content.body.len() as u64;
        let (name, bytes) = match &compressed {
            Some(br) => {
                report.packed += 1;
                (format!("{relative}.br"), br.as_slice())
            }
            None => (relative.clone(), content.body.as_slice()),
        };
        report.bytes_out += bytes.len() as u64;
        write(&to.join(name), bytes)?;
    }
    let back = read_dir(to)?;
    let same = back.len() == source.len()
        && back
            .iter()
            .zip(&source)
            .all(|((a, x), (b, y))| a == b && x.body == y.body);
    if !same {
        return Err(PackError::Mismatch(
            to.to_path_buf(),
            format!("{} files read back, {} packed", back.len(), source.len()),
        ));
    }
    Ok(report)
}

/// Each file's Brotli (in `source`'s order) when its type is compressible and Brotli
/// makes it smaller. Brotli at its best is slow (seconds for the diagram library), so
/// the files are shared among one thread per core, the largest taken first.
fn compress_all(source: &BTreeMap<String, Content>) -> Vec<Option<Vec<u8>>> {
    let files: Vec<(&String, &Content)> = source.iter().collect();
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by_key(|&at| std::cmp::Reverse(files[at].1.body.len()));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let mut results: Vec<Option<Vec<u8>>> = vec![None; files.len()];
    let done: Vec<(usize, Option<Vec<u8>>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let taken = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&at) = order.get(taken) else {
                            return done;
                        };
                        let (relative, content) = files[at];
                        let compressed = is_compressible(content_type(relative))
                            .then(|| {
                                content
                                    .brotli
                                    .clone()
                                    .unwrap_or_else(|| brotli(&content.body))
                            })
                            .filter(|compressed| compressed.len() < content.body.len());
                        done.push((at, compressed));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    for (at, compressed) in done {
        results[at] = compressed;
    }
    results
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), PackError> {
    let failed = |source| PackError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(failed)?;
    }
    std::fs::write(path, bytes).map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::static_files::gzip;

    fn tree(files: &[(&str, &[u8])]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in files {
            write(&dir.path().join(name), bytes).unwrap();
        }
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut paths = Vec::new();
        walk(dir, dir, &mut paths).unwrap();
        let mut names: Vec<String> = paths.into_iter().map(|(name, _)| name).collect();
        names.sort();
        names
    }

    const PAGE: &[u8] =
        b"<!doctype html><html><body><p>hello hello hello hello hello</p></body></html>";

    #[test]
    fn packing_stores_compressible_files_as_brotli_only_and_reads_back_the_same() {
        let script = "console.log('x');\n".repeat(200);
        let png = [0x89, b'P', b'N', b'G', 1, 2, 3, 4, 5, 6, 7, 8].repeat(50);
        let source = tree(&[
            ("index.html", PAGE),
            ("app-0123456789abcdef/app.js", script.as_bytes()),
            ("icons/icon.png", &png),
            ("tiny.css", b"a{}"),
            ("backup.tar.gz", b"not inflated: not a served type"),
        ]);
        let out = tempfile::tempdir().unwrap();
        let to = out.path().join("packed");
        let report = pack(source.path(), &to).unwrap();
        assert_eq!(
            names(&to),
            [
                "app-0123456789abcdef/app.js.br",
                "backup.tar.gz",
                "icons/icon.png",
                "index.html.br",
                "tiny.css",
            ]
        );
        assert_eq!((report.files, report.packed), (5, 2));
        assert!(report.bytes_out < report.bytes_in / 2, "{report:?}");
        let plain = read_dir(source.path()).unwrap();
        let packed = read_dir(&to).unwrap();
        assert_eq!(
            plain.keys().collect::<Vec<_>>(),
            packed.keys().collect::<Vec<_>>()
        );
        for (name, content) in &packed {
            assert_eq!(content.body, plain[name].body, "{name}");
        }
        assert!(packed["index.html"].brotli.is_some());
        assert!(packed["icons/icon.png"].brotli.is_none());
        // A packed directory packs again to the same files.
        let again = out.path().join("again");
        assert_eq!(pack(&to, &again).unwrap(), report);
    }

    #[test]
    fn a_companion_is_used_only_when_it_matches_the_file_it_stands_for() {
        let good = gzip(PAGE);
        let stale = gzip(b"<p>an older page</p>");
        let dir = tree(&[("index.html", PAGE), ("index.html.gz", &good)]);
        assert_eq!(
            read_dir(dir.path()).unwrap()["index.html"].gzip,
            Some(good.clone())
        );
        for stale in [
            ("index.html.gz", stale),
            ("index.html.br", brotli(b"<p>old</p>")),
        ] {
            let dir = tree(&[("index.html", PAGE), (stale.0, &stale.1)]);
            let files = read_dir(dir.path()).unwrap();
            assert_eq!(files.len(), 1, "the stale companion is not served");
            assert_eq!(files["index.html"].body, PAGE);
            assert_eq!(
                (&files["index.html"].gzip, &files["index.html"].brotli),
                (&None, &None)
            );
        }
        // Both forms and no plain file: one body, both kept.
        let br = brotli(PAGE);
        let dir = tree(&[("index.html.br", &br), ("index.html.gz", &good)]);
        let files = read_dir(dir.path()).unwrap();
        assert_eq!(files["index.html"].body, PAGE);
        assert_eq!(files["index.html"].brotli, Some(br));
        assert_eq!(files["index.html"].gzip, Some(good));
    }

    #[test]
    fn a_damaged_or_oversized_packed_file_refuses_to_load() {
        for name in ["index.html.gz", "index.html.br"] {
            let dir = tree(&[(name, b"plain text, not compressed data")]);
            assert!(
                matches!(read_dir(dir.path()), Err(LoadError::Packed { .. })),
                "{name}"
            );
        }
        let zeros = vec![0u8; (MAX_UNPACKED + 1) as usize];
        let bombs = [
            ("app.wasm.gz", gzip(&zeros)),
            ("app.wasm.br", {
                let mut out = Vec::new();
                let mut writer = brotli::CompressorWriter::new(&mut out, 4096, 1, 22);
                writer.write_all(&zeros).unwrap();
                drop(writer);
                out
            }),
        ];
        for (name, bomb) in bombs {
            let dir = tree(&[("index.html", PAGE), (name, &bomb)]);
            match read_dir(dir.path()) {
                Err(LoadError::Packed { reason, .. }) => {
                    assert!(reason.contains("decodes past"), "{name}: {reason}")
                }
                other => panic!("{name}: {other:?}"),
            }
        }
    }

    #[test]
    fn packing_refuses_a_used_destination_and_a_source_that_is_no_build() {
        let source = tree(&[("index.html", PAGE)]);
        let used = tree(&[("old.js", b"x")]);
        assert!(matches!(
            pack(source.path(), used.path()),
            Err(PackError::NotEmpty(_))
        ));
        assert_eq!(names(used.path()), ["old.js"], "nothing written");
        let no_build = tree(&[("other.txt", b"x")]);
        let out = tempfile::tempdir().unwrap();
        assert!(matches!(
            pack(no_build.path(), &out.path().join("p")),
            Err(PackError::Source(LoadError::NotBuilt { .. }))
        ));
    }
}
