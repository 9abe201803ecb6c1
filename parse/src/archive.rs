//! ZIP safety, the one way every ZIP-based format (DOCX, XLSX, PPTX, ODT, EPUB, MinerU
//! results) reads its archive.
//!
//! An archive's declarations are not trusted: the entry count is bounded before its
//! directory is parsed, every entry name is checked for traversal when it is opened,
//! and an entry is read raw and inflated here, through `take(limit + 1)`, so its inflated
//! size, its ratio to the compressed bytes the inflater actually consumed and its CRC are
//! measured, not read from its headers. Only the entries a parser asks for are read.

use std::io::{Cursor, Read};

use flate2::read::DeflateDecoder;
use hearth_core::filetype::FileKind;
use zip::result::ZipError;
use zip::{CompressionMethod, ZipArchive};

use crate::error::{Bomb, ParseError};
use crate::limits::ZipLimits;

/// The ratio check starts once an entry has inflated this far.
const RATIO_FLOOR: u64 = 1024 * 1024;
/// Bytes inflated per read.
const CHUNK: usize = 64 * 1024;
/// The central directory header signature, counted to bound the entry count.
const CENTRAL_HEADER: [u8; 4] = *b"PK\x01\x02";

/// An opened archive, with the bytes inflated from it so far.
pub(crate) struct Archive<'a> {
    zip: ZipArchive<Cursor<&'a [u8]>>,
    kind: FileKind,
    limits: ZipLimits,
    inflated: u64,
}

impl std::fmt::Debug for Archive<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Archive")
            .field("kind", &self.kind)
            .field("entries", &self.zip.len())
            .field("inflated", &self.inflated)
            .finish()
    }
}

impl<'a> Archive<'a> {
    /// Opens `bytes` as the archive of a `kind` file: counts its entries, parses its
    /// directory and checks every name.
    pub(crate) fn open(
        bytes: &'a [u8],
        kind: FileKind,
        limits: &ZipLimits,
    ) -> Result<Self, ParseError> {
        // Each directory record starts with its signature; the zip crate cannot parse more
        // records than there are signatures, so counting them bounds what it will do.
        let count = count_signatures(bytes, limits.max_entries);
        if count > limits.max_entries {
            return Err(ParseError::ZipBomb {
                reason: Bomb::TooManyEntries {
                    count,
                    limit: limits.max_entries,
                },
            });
        }
        let zip = ZipArchive::new(Cursor::new(bytes)).map_err(|e| zip_error(kind, e))?;
        if zip.len() > limits.max_entries {
            return Err(ParseError::ZipBomb {
                reason: Bomb::TooManyEntries {
                    count: zip.len(),
                    limit: limits.max_entries,
                },
            });
        }
        for raw in zip.file_names_raw() {
            check_name(raw)?;
        }
        Ok(Archive {
            zip,
            kind,
            limits: limits.clone(),
            inflated: 0,
        })
    }

    /// The entry names, in directory order.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.zip
            .file_names_raw()
            .filter_map(|n| std::str::from_utf8(n).ok())
    }

    /// Reads the entry `name`, if the archive has it, within the per-entry and total caps.
    pub(crate) fn read(&mut self, name: &str) -> Result<Option<Vec<u8>>, ParseError> {
        let cap = self.limits.max_entry_inflated;
        self.read_capped(name, cap, |entry, limit| ParseError::ZipBomb {
            reason: Bomb::EntryTooLarge { entry, limit },
        })
    }

    /// Reads the entry `name` as UTF-8 text (a BOM dropped).
    pub(crate) fn read_text(&mut self, name: &str) -> Result<Option<String>, ParseError> {
        let kind = self.kind;
        self.read(name)?
            .map(|bytes| utf8(kind, name, bytes))
            .transpose()
    }

    /// Reads the entry `name` inflating at most `cap` bytes of it (and never past the
    /// per-entry cap); past `cap`, `over_cap(entry, cap)` is the error.
    pub(crate) fn read_capped(
        &mut self,
        name: &str,
        cap: u64,
        over_cap: impl Fn(String, u64) -> ParseError,
    ) -> Result<Option<Vec<u8>>, ParseError> {
        let Some(index) = self.zip.index_for_name(name) else {
            return Ok(None);
        };
        let kind = self.kind;
        let limits = self.limits.clone();
        let entry_cap = cap.min(limits.max_entry_inflated);
        let total_left = limits.max_total_inflated.saturating_sub(self.inflated);
        let mut file = self
            .zip
            .by_index_raw(index)
            .map_err(|e| zip_error(kind, e))?;
        if file.encrypted() {
            return Err(ParseError::Encrypted { kind });
        }
        let method = file.compression();
        let declared = file.size();
        let crc = file.crc32();
        let mut inflater = if method == CompressionMethod::STORE {
            Inflater::Stored(&mut file, 0)
        } else if method == CompressionMethod::DEFLATE {
            Inflater::Deflated(DeflateDecoder::new(&mut file))
        } else {
            return Err(ParseError::malformed(
                kind,
                format!("entry {name:?} uses compression {method:?}, which is not read"),
            ));
        };
        let limit = entry_cap.min(total_left);
        let mut data = Vec::with_capacity(declared.min(limit).min(RATIO_FLOOR) as usize);
        let mut chunk = vec![0u8; CHUNK];
        let mut hasher = flate2::Crc::new();
        loop {
            let n = match inflater.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(ParseError::malformed(kind, format!("entry {name:?}: {e}")));
                }
            };
            data.extend_from_slice(&chunk[..n]);
            hasher.update(&chunk[..n]);
            let inflated = data.len() as u64;
            if inflated > limit {
                return Err(if limit < entry_cap {
                    ParseError::ZipBomb {
                        reason: Bomb::TotalTooLarge {
                            limit: limits.max_total_inflated,
                        },
                    }
                } else {
                    over_cap(name.to_string(), entry_cap)
                });
            }
            if inflated > declared {
                return Err(ParseError::ZipBomb {
                    reason: Bomb::SizeMismatch {
                        entry: name.to_string(),
                        declared,
                    },
                });
            }
            let compressed = inflater.consumed().max(1);
            if inflated > RATIO_FLOOR && inflated / compressed > limits.max_ratio {
                return Err(ParseError::ZipBomb {
                    reason: Bomb::Ratio {
                        entry: name.to_string(),
                        limit: limits.max_ratio,
                    },
                });
            }
        }
        if (data.len() as u64) < declared || hasher.sum() != crc {
            return Err(ParseError::malformed(
                kind,
                format!("entry {name:?} is truncated or fails its checksum"),
            ));
        }
        self.inflated += data.len() as u64;
        Ok(Some(data))
    }
}

/// Stored or deflated entry data, counting the compressed bytes consumed.
enum Inflater<R: Read> {
    Stored(R, u64),
    Deflated(DeflateDecoder<R>),
}

impl<R: Read> Inflater<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Inflater::Stored(r, consumed) => {
                let n = r.read(buf)?;
                *consumed += n as u64;
                Ok(n)
            }
            Inflater::Deflated(d) => d.read(buf),
        }
    }

    /// Compressed bytes taken in so far.
    fn consumed(&self) -> u64 {
        match self {
            Inflater::Stored(_, consumed) => *consumed,
            Inflater::Deflated(d) => d.total_in(),
        }
    }
}

/// Counts central directory signatures, stopping once past `limit`.
fn count_signatures(bytes: &[u8], limit: usize) -> usize {
    let mut count = 0;
    let mut rest = bytes;
    while let Some(at) = rest.windows(4).position(|w| w == CENTRAL_HEADER) {
        count += 1;
        if count > limit {
            break;
        }
        rest = &rest[at + 4..];
    }
    count
}

/// Refuses a name with a `..` component, an absolute path, a backslash, a drive letter
/// or a NUL: any of them could write outside a folder if the archive were ever unpacked.
pub(crate) fn check_name(raw: &[u8]) -> Result<(), ParseError> {
    let refused = raw.starts_with(b"/")
        || raw.contains(&b'\\')
        || raw.contains(&0)
        || (raw.len() >= 2 && raw[0].is_ascii_alphabetic() && raw[1] == b':')
        || raw.split(|&b| b == b'/').any(|part| part == b"..");
    if refused {
        return Err(ParseError::PathTraversal {
            name: String::from_utf8_lossy(raw).into_owned(),
        });
    }
    Ok(())
}

fn zip_error(kind: FileKind, e: ZipError) -> ParseError {
    match e {
        ZipError::UnsupportedArchive(m) if m == ZipError::PASSWORD_REQUIRED => {
            ParseError::Encrypted { kind }
        }
        other => ParseError::malformed(kind, other),
    }
}

/// Decodes an entry as UTF-8, dropping a BOM.
pub(crate) fn utf8(kind: FileKind, name: &str, bytes: Vec<u8>) -> Result<String, ParseError> {
    let mut text = String::from_utf8(bytes)
        .map_err(|_| ParseError::malformed(kind, format!("entry {name:?} is not UTF-8")))?;
    if text.starts_with('\u{feff}') {
        text.drain(..3);
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traversal_names_are_refused() {
        for bad in [
            &b"../evil"[..],
            b"a/../../evil",
            b"/etc/passwd",
            b"C:/x",
            b"c:x",
            b"dir\\file",
            b"a\0b",
            b"..",
        ] {
            assert!(
                matches!(check_name(bad), Err(ParseError::PathTraversal { .. })),
                "{bad:?}"
            );
        }
        for good in [&b"word/document.xml"[..], b"a..b/c", b"...", b"x/.hidden"] {
            assert!(check_name(good).is_ok(), "{good:?}");
        }
    }
}
