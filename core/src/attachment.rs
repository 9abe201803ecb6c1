//! Files attached to a message or kept by a workspace: what is kept of each
//! ([`Attachment`]), how many and which a holder takes ([`Bounds`]), how the composer or
//! the workspace editor decides it may add one ([`check_add`]), where its text comes from
//! ([`Reader`]: the browser for text kinds, the edge's parse jobs for documents). How its
//! text enters a turn is `chat::attachment_context`.

use serde::{Deserialize, Serialize};

use crate::api::doc_parse::ParseNote;
use crate::filetype::FileKind;

/// The most files one message carries.
pub const MAX_ATTACHMENTS: usize = 10;
/// The most bytes of all of one message's files together.
pub const MAX_TOTAL_BYTES: u64 = 64 * 1024 * 1024;
/// The largest text file read in the browser (documents the edge parses have the
/// edge's own limit, `PublicConfig::document_parse_max_bytes`).
pub const MAX_TEXT_BYTES: u64 = 16 * 1024 * 1024;
/// The largest image accepted before it is scaled down in the browser.
pub const MAX_IMAGE_BYTES: u64 = 20 * 1024 * 1024;
/// The most characters of text kept of one file (about 500k tokens).
pub const MAX_TEXT_CHARS: usize = 2_000_000;
/// The longest side of an image as it is kept and sent, in pixels (what the vision
/// providers use at their highest detail; larger images are scaled down by them anyway).
pub const MAX_IMAGE_SIDE: u32 = 2048;
/// The most bytes of an image as it is kept and sent (well under every provider's
/// per-image limit, and small enough for a request to carry several).
pub const MAX_IMAGE_SEND_BYTES: u64 = 1_536 * 1024;
/// The longest side of an image's thumbnail, in pixels.
pub const THUMBNAIL_SIDE: u32 = 256;
/// The most images one request carries (the newest; older ones are named in text).
pub const MAX_IMAGES_PER_REQUEST: usize = 16;

/// How many files one holder (a message, a workspace) takes, how many bytes together,
/// and whether images are among them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// The most files.
    pub max_files: usize,
    /// The most bytes of all of them together.
    pub max_total: u64,
    /// Whether images are taken (a workspace's files are read as text only).
    pub images: bool,
}

impl Bounds {
    /// A message's: [`MAX_ATTACHMENTS`] files, [`MAX_TOTAL_BYTES`], images too.
    pub const MESSAGE: Bounds = Bounds {
        max_files: MAX_ATTACHMENTS,
        max_total: MAX_TOTAL_BYTES,
        images: true,
    };
}

/// What a message keeps of an attached file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attachment {
    /// Its id (also its files' names in the browser's file store).
    pub id: String,
    /// The file's name as the user had it.
    pub name: String,
    /// What its bytes are.
    pub kind: FileKind,
    /// The original's size in bytes.
    pub size: u64,
    /// Characters of extracted text.
    pub text_chars: u64,
    /// What the user should know about the text (cut, scanned pages).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<ParseNote>,
    /// An image's size as kept (after scaling down), in pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pixels: Option<(u32, u32)>,
}

impl Attachment {
    /// A file `id` of `kind` and `size` bytes named `<id>.txt`, for tests.
    #[cfg(test)]
    pub(crate) fn test_file(id: &str, kind: FileKind, size: u64) -> Self {
        Self {
            id: id.into(),
            name: format!("{id}.txt"),
            kind,
            size,
            text_chars: size,
            notes: Vec::new(),
            pixels: None,
        }
    }

    /// Whether it is an image (sent as itself to models that see, never as text).
    pub fn is_image(&self) -> bool {
        self.kind.is_image()
    }
}

/// Where a kind's text comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// Decoded in the browser (text, Markdown, CSV, JSON, HTML).
    Browser,
    /// Parsed by the edge (`/api/doc-parse`: PDF, Office, OpenDocument, EPUB).
    Edge,
    /// Not text: an image, sent as itself to models that see.
    Image,
}

impl Reader {
    /// The reader for `kind`.
    pub fn of(kind: FileKind) -> Self {
        if kind.is_image() {
            Self::Image
        } else if matches!(
            kind,
            FileKind::Text | FileKind::Markdown | FileKind::Csv | FileKind::Json | FileKind::Html
        ) {
            Self::Browser
        } else {
            Self::Edge
        }
    }
}

/// Why a file cannot be added. Codes are stable: the app renders them in the user's
/// language.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AttachError {
    /// The holder already has its most files ([`Bounds::max_files`]).
    #[error("at most {max} files can be kept here")]
    TooMany {
        /// The limit.
        max: usize,
    },
    /// The file alone is over its kind's limit.
    #[error("the file is larger than {max} bytes")]
    TooLarge {
        /// The limit.
        max: u64,
    },
    /// With it, the holder's files would be over [`Bounds::max_total`].
    #[error("the files together would be larger than {max} bytes")]
    TotalTooLarge {
        /// The limit.
        max: u64,
    },
    /// Its bytes are no kind Hearth reads.
    #[error("the file's type is not one Hearth can read")]
    UnknownType,
    /// An image, where only files read as text are kept (a workspace's).
    #[error("images cannot be kept here, only documents and text")]
    ImageNotTaken,
    /// Documents need the edge's parser, and this deployment has none.
    #[error("this server cannot read documents of this type")]
    NoParser,
    /// An empty file.
    #[error("the file is empty")]
    Empty,
    /// The browser could not decode the image.
    #[error("the image cannot be read")]
    ImageUnreadable,
    /// The image declares more pixels than may be decoded
    /// ([`crate::image_header::MAX_IMAGE_PIXELS`]).
    #[error("the image has more than {max} pixels")]
    ImageTooManyPixels {
        /// The limit.
        max: u64,
    },
    /// Even scaled down, the image stays over [`MAX_IMAGE_SEND_BYTES`].
    #[error("the image stays larger than {max} bytes even when scaled down")]
    ImageTooDetailed {
        /// The limit.
        max: u64,
    },
}

impl AttachError {
    /// The stable code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::TooMany { .. } => "attach_too_many",
            Self::TooLarge { .. } => "attach_too_large",
            Self::TotalTooLarge { .. } => "attach_total_too_large",
            Self::UnknownType => "attach_unknown_type",
            Self::ImageNotTaken => "attach_image_not_taken",
            Self::NoParser => "attach_no_parser",
            Self::Empty => "attach_empty",
            Self::ImageUnreadable => "attach_image_unreadable",
            Self::ImageTooManyPixels { .. } => "attach_image_too_many_pixels",
            Self::ImageTooDetailed { .. } => "attach_image_too_detailed",
        }
    }
}

/// What the deployment offers the composer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttachLimits {
    /// Whether the edge parses documents.
    pub edge_parser: bool,
    /// The largest file the edge parses.
    pub edge_max_bytes: u64,
    /// The holder's bounds.
    pub bounds: Bounds,
}

/// Whether a file of `kind` and `size` may join files of `held` sizes in a holder of
/// `limits.bounds`.
pub fn check_add(
    held: &[u64],
    kind: FileKind,
    size: u64,
    limits: AttachLimits,
) -> Result<(), AttachError> {
    let bounds = limits.bounds;
    if held.len() >= bounds.max_files {
        return Err(AttachError::TooMany {
            max: bounds.max_files,
        });
    }
    if size == 0 {
        return Err(AttachError::Empty);
    }
    let max = match Reader::of(kind) {
        Reader::Image if !bounds.images => return Err(AttachError::ImageNotTaken),
        Reader::Browser => MAX_TEXT_BYTES,
        Reader::Edge if !limits.edge_parser => return Err(AttachError::NoParser),
        Reader::Edge => limits.edge_max_bytes,
        Reader::Image => MAX_IMAGE_BYTES,
    };
    if size > max {
        return Err(AttachError::TooLarge { max });
    }
    check_room(held, size, bounds.max_total)
}

/// Whether a copy of a file attached before (read then, its kind's own limits met), of
/// `size` bytes, may join a message's files of `held` sizes: the count and total limits.
pub fn check_reuse(held: &[u64], size: u64) -> Result<(), AttachError> {
    if held.len() >= MAX_ATTACHMENTS {
        return Err(AttachError::TooMany {
            max: MAX_ATTACHMENTS,
        });
    }
    check_room(held, size, MAX_TOTAL_BYTES)
}

fn check_room(held: &[u64], size: u64, max: u64) -> Result<(), AttachError> {
    if held.iter().sum::<u64>() + size > max {
        return Err(AttachError::TotalTooLarge { max });
    }
    Ok(())
}

/// `text` cut to [`MAX_TEXT_CHARS`] on a character boundary, with a note when cut.
pub fn bounded_text(text: &str) -> (String, Option<ParseNote>) {
    match text.char_indices().nth(MAX_TEXT_CHARS) {
        None => (text.to_string(), None),
        Some((end, _)) => (
            text[..end].to_string(),
            Some(ParseNote::Truncated { bytes: end as u64 }),
        ),
    }
}

/// `width` × `height` scaled down (never up) so that its longest side is at most
/// `max_side`, keeping the aspect ratio; no side becomes zero.
pub fn fit_within(width: u32, height: u32, max_side: u32) -> (u32, u32) {
    let longest = width.max(height);
    if longest <= max_side || longest == 0 {
        return (width, height);
    }
    let scale = |side: u32| {
        let scaled =
            (u64::from(side) * u64::from(max_side) + u64::from(longest) / 2) / u64::from(longest);
        (scaled as u32).max(1)
    };
    (scale(width), scale(height))
}

/// What to do with an attached image before it is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageTarget {
    /// Keep the bytes as they are: a type every vision provider takes, small enough.
    Keep,
    /// Draw it again at this size and encode it as `kind` (see [`encode_attempts`]).
    Encode {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
        /// The type to encode: JPEG stays JPEG (photos), the rest become WebP, which
        /// keeps transparency and which every vision provider takes.
        kind: FileKind,
    },
}

/// What to do with an image of `kind`, `width` × `height` pixels and `bytes` long. GIFs
/// are always drawn again (an animated GIF is refused by some providers; its first frame
/// is what a model sees).
pub fn image_target(kind: FileKind, width: u32, height: u32, bytes: u64) -> ImageTarget {
    let fits = width.max(height) <= MAX_IMAGE_SIDE && bytes <= MAX_IMAGE_SEND_BYTES;
    if fits && kind != FileKind::Gif {
        return ImageTarget::Keep;
    }
    let (width, height) = fit_within(width, height, MAX_IMAGE_SIDE);
    let kind = if kind == FileKind::Jpeg {
        FileKind::Jpeg
    } else {
        FileKind::Webp
    };
    ImageTarget::Encode {
        width,
        height,
        kind,
    }
}

/// One encoding to try: the size and the lossy quality (0 to 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EncodeAttempt {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Quality for lossy types.
    pub quality: f64,
}

/// The encodings to try in order until one is at most [`MAX_IMAGE_SEND_BYTES`]: lower
/// qualities first, then smaller sizes (three quarters each time, down to a quarter of
/// the longest side). A short, bounded list: an image that fits none is refused.
pub fn encode_attempts(width: u32, height: u32) -> Vec<EncodeAttempt> {
    const QUALITIES: [f64; 3] = [0.88, 0.76, 0.62];
    let mut out = Vec::new();
    let longest = width.max(height);
    let mut side = longest;
    for _ in 0..5 {
        let (w, h) = fit_within(width, height, side);
        for quality in QUALITIES {
            out.push(EncodeAttempt {
                width: w,
                height: h,
                quality,
            });
        }
        side = side * 3 / 4;
        if side < longest / 4 || side == 0 {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: AttachLimits = AttachLimits {
        edge_parser: true,
        edge_max_bytes: 1000,
        bounds: Bounds::MESSAGE,
    };

    #[test]
    fn a_copy_of_an_earlier_file_meets_the_count_and_total_limits_only() {
        // Larger than a text file may be when first read: its kind's limit was met then.
        assert_eq!(check_reuse(&[], MAX_TEXT_BYTES + 1), Ok(()));
        let full = vec![1; MAX_ATTACHMENTS];
        assert_eq!(
            check_reuse(&full, 1),
            Err(AttachError::TooMany {
                max: MAX_ATTACHMENTS
            })
        );
        let nearly = [MAX_TOTAL_BYTES - 10];
        assert_eq!(check_reuse(&nearly, 10), Ok(()));
        assert_eq!(
            check_reuse(&nearly, 11),
            Err(AttachError::TotalTooLarge {
                max: MAX_TOTAL_BYTES
            })
        );
    }

    #[test]
    fn kinds_are_read_where_they_can_be() {
        assert_eq!(Reader::of(FileKind::Markdown), Reader::Browser);
        assert_eq!(Reader::of(FileKind::Html), Reader::Browser);
        assert_eq!(Reader::of(FileKind::Pdf), Reader::Edge);
        assert_eq!(Reader::of(FileKind::Docx), Reader::Edge);
        assert_eq!(Reader::of(FileKind::Png), Reader::Image);
    }

    #[test]
    fn limits_are_checked_before_anything_is_added() {
        assert_eq!(check_add(&[], FileKind::Pdf, 1000, LIMITS), Ok(()));
        assert_eq!(
            check_add(&[], FileKind::Pdf, 1001, LIMITS),
            Err(AttachError::TooLarge { max: 1000 })
        );
        assert_eq!(
            check_add(
                &[],
                FileKind::Pdf,
                10,
                AttachLimits {
                    edge_parser: false,
                    ..LIMITS
                }
            ),
            Err(AttachError::NoParser)
        );
        assert_eq!(
            check_add(&[1; MAX_ATTACHMENTS], FileKind::Text, 1, LIMITS),
            Err(AttachError::TooMany {
                max: MAX_ATTACHMENTS
            })
        );
        assert_eq!(
            check_add(&[MAX_TOTAL_BYTES - 5], FileKind::Text, 6, LIMITS),
            Err(AttachError::TotalTooLarge {
                max: MAX_TOTAL_BYTES
            })
        );
        assert_eq!(
            check_add(&[], FileKind::Text, 0, LIMITS),
            Err(AttachError::Empty)
        );
        assert_eq!(
            check_add(&[], FileKind::Text, MAX_TEXT_BYTES + 1, LIMITS).map_err(|e| e.code()),
            Err("attach_too_large")
        );
    }

    #[test]
    fn a_holders_own_bounds_decide_the_count_the_total_and_images() {
        let documents_only = AttachLimits {
            bounds: Bounds {
                max_files: 2,
                max_total: 100,
                images: false,
            },
            ..LIMITS
        };
        assert_eq!(check_add(&[1], FileKind::Text, 10, documents_only), Ok(()));
        assert_eq!(
            check_add(&[1, 1], FileKind::Text, 10, documents_only),
            Err(AttachError::TooMany { max: 2 })
        );
        assert_eq!(
            check_add(&[50], FileKind::Markdown, 51, documents_only),
            Err(AttachError::TotalTooLarge { max: 100 })
        );
        for image in [FileKind::Png, FileKind::Jpeg, FileKind::Gif] {
            let refused = check_add(&[], image, 10, documents_only);
            assert_eq!(refused, Err(AttachError::ImageNotTaken));
            assert_eq!(check_add(&[], image, 10, LIMITS), Ok(()));
        }
        assert_eq!(AttachError::ImageNotTaken.code(), "attach_image_not_taken");
    }

    #[test]
    fn images_are_scaled_down_never_up_keeping_their_shape() {
        assert_eq!(fit_within(4000, 3000, 2048), (2048, 1536));
        assert_eq!(fit_within(3000, 4000, 2048), (1536, 2048));
        assert_eq!(fit_within(800, 600, 2048), (800, 600), "never up");
        assert_eq!(
            fit_within(10_000, 1, 2048),
            (2048, 1),
            "no side becomes zero"
        );
        assert_eq!(fit_within(0, 0, 2048), (0, 0));
        assert_eq!(fit_within(4000, 3000, THUMBNAIL_SIDE), (256, 192));
    }

    #[test]
    fn small_images_are_kept_and_others_encoded() {
        assert_eq!(
            image_target(FileKind::Png, 800, 600, 200_000),
            ImageTarget::Keep
        );
        assert_eq!(
            image_target(FileKind::Png, 4000, 3000, 200_000),
            ImageTarget::Encode {
                width: 2048,
                height: 1536,
                kind: FileKind::Webp
            },
            "too large a side; WebP keeps transparency"
        );
        assert_eq!(
            image_target(FileKind::Jpeg, 1000, 1000, MAX_IMAGE_SEND_BYTES + 1),
            ImageTarget::Encode {
                width: 1000,
                height: 1000,
                kind: FileKind::Jpeg
            },
            "too many bytes: a photo stays a JPEG"
        );
        assert!(
            matches!(
                image_target(FileKind::Gif, 10, 10, 100),
                ImageTarget::Encode { .. }
            ),
            "a GIF is always drawn again"
        );
    }

    #[test]
    fn encode_attempts_lower_quality_then_size_and_end() {
        let attempts = encode_attempts(2048, 1536);
        assert_eq!(
            attempts[0],
            EncodeAttempt {
                width: 2048,
                height: 1536,
                quality: 0.88
            }
        );
        assert!(attempts.len() <= 15, "bounded: {}", attempts.len());
        assert!(attempts.windows(2).all(|w| w[1].width <= w[0].width));
        let last = attempts.last().unwrap();
        assert!(last.width >= 2048 / 4 && last.width < 1024, "{last:?}");
        assert!(!encode_attempts(1, 1).is_empty());
    }

    #[test]
    fn text_is_bounded_with_a_note() {
        let (kept, note) = bounded_text("short");
        assert_eq!((kept.as_str(), note), ("short", None));
        let long = "é".repeat(MAX_TEXT_CHARS + 3);
        let (kept, note) = bounded_text(&long);
        assert_eq!(kept.chars().count(), MAX_TEXT_CHARS);
        assert_eq!(
            note,
            Some(ParseNote::Truncated {
                bytes: kept.len() as u64
            })
        );
    }
}
