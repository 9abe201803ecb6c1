//! An image's size in pixels, read from its header without decoding it: PNG (`IHDR`),
//! GIF (the logical screen), WebP (`VP8 `, `VP8L`, `VP8X`) and JPEG (the first
//! start-of-frame segment). The browser is asked to decode an image only once its size
//! is known to be sane: a small file can declare a picture of billions of pixels, and
//! decoding it would take the tab's memory (see [`check_pixels`]).

use crate::attachment::AttachError;
use crate::filetype::FileKind;

/// The most pixels an attached image may have (about 240 MB once decoded): every camera
/// photo of today, but not a decompression bomb.
pub const MAX_IMAGE_PIXELS: u64 = 60_000_000;

/// The width and height `bytes` of `kind` declare, or `None` when the header is not
/// there or not readable (the file is then treated as unreadable).
pub fn dimensions(kind: FileKind, bytes: &[u8]) -> Option<(u32, u32)> {
    let size = match kind {
        FileKind::Png => png(bytes),
        FileKind::Gif => gif(bytes),
        FileKind::Webp => webp(bytes),
        FileKind::Jpeg => jpeg(bytes),
        _ => None,
    }?;
    (size.0 > 0 && size.1 > 0).then_some(size)
}

/// Whether an image of `width` × `height` may be decoded.
pub fn check_pixels(width: u32, height: u32) -> Result<(), AttachError> {
    if u64::from(width) * u64::from(height) > MAX_IMAGE_PIXELS {
        return Err(AttachError::ImageTooManyPixels {
            max: MAX_IMAGE_PIXELS,
        });
    }
    Ok(())
}

fn be32(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn be16(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from(u16::from_be_bytes(
        bytes.get(at..at + 2)?.try_into().ok()?,
    )))
}

fn le16(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from(u16::from_le_bytes(
        bytes.get(at..at + 2)?.try_into().ok()?,
    )))
}

fn le24(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at + 3)?;
    Some(u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16)
}

fn png(bytes: &[u8]) -> Option<(u32, u32)> {
    (bytes.get(12..16)? == b"IHDR").then_some(())?;
    Some((be32(bytes, 16)?, be32(bytes, 20)?))
}

fn gif(bytes: &[u8]) -> Option<(u32, u32)> {
    Some((le16(bytes, 6)?, le16(bytes, 8)?))
}

fn webp(bytes: &[u8]) -> Option<(u32, u32)> {
    match bytes.get(12..16)? {
        b"VP8 " => {
            // The key frame's start code, then 14-bit width and height.
            (bytes.get(23..26)? == [0x9d, 0x01, 0x2a]).then_some(())?;
            Some((le16(bytes, 26)? & 0x3fff, le16(bytes, 28)? & 0x3fff))
        }
        b"VP8L" => {
            (*bytes.get(20)? == 0x2f).then_some(())?;
            let bits = u32::from_le_bytes(bytes.get(21..25)?.try_into().ok()?);
            Some(((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1))
        }
        b"VP8X" => Some((le24(bytes, 24)? + 1, le24(bytes, 27)? + 1)),
        _ => None,
    }
}

fn jpeg(bytes: &[u8]) -> Option<(u32, u32)> {
    (bytes.get(..2)? == [0xff, 0xd8]).then_some(())?;
    let mut at = 2;
    loop {
        // Markers may be preceded by fill bytes.
        while *bytes.get(at)? != 0xff {
            at += 1;
        }
        while *bytes.get(at)? == 0xff {
            at += 1;
        }
        let marker = *bytes.get(at)?;
        at += 1;
        match marker {
            // Markers without a length.
            0x01 | 0xd0..=0xd9 => continue,
            // Start of frame (not DHT, JPG or DAC): precision, height, width.
            0xc0..=0xcf if !matches!(marker, 0xc4 | 0xc8 | 0xcc) => {
                return Some((be16(bytes, at + 5)?, be16(bytes, at + 3)?));
            }
            // Start of scan before any frame: not a usable image.
            0xda => return None,
            _ => at += usize::try_from(be16(bytes, at)?).ok()?,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png_header(width: u32, height: u32) -> Vec<u8> {
        let mut out = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        out.extend(width.to_be_bytes());
        out.extend(height.to_be_bytes());
        out.extend([8, 6, 0, 0, 0]);
        out
    }

    fn riff(chunk: &[u8; 4], body: &[u8]) -> Vec<u8> {
        let mut out = b"RIFF\0\0\0\0WEBP".to_vec();
        out.extend(chunk);
        out.extend((body.len() as u32).to_le_bytes());
        out.extend(body);
        out
    }

    #[test]
    fn png_and_gif_headers_are_read() {
        assert_eq!(
            dimensions(FileKind::Png, &png_header(4000, 3000)),
            Some((4000, 3000))
        );
        assert_eq!(
            dimensions(FileKind::Gif, b"GIF89a\x20\x03\x58\x02\0\0"),
            Some((800, 600))
        );
        assert_eq!(dimensions(FileKind::Png, b"\x89PNG\r\n\x1a\n"), None);
        assert_eq!(
            dimensions(FileKind::Png, &png_header(0, 10)),
            None,
            "a zero side is no image"
        );
    }

    #[test]
    fn webp_headers_of_all_three_kinds_are_read() {
        let mut lossy = vec![0u8; 3];
        lossy.extend([0x9d, 0x01, 0x2a]);
        lossy.extend(640u16.to_le_bytes());
        lossy.extend(480u16.to_le_bytes());
        assert_eq!(
            dimensions(FileKind::Webp, &riff(b"VP8 ", &lossy)),
            Some((640, 480))
        );
        let bits: u32 = (100 - 1) | ((50 - 1) << 14);
        let mut lossless = vec![0x2f];
        lossless.extend(bits.to_le_bytes());
        assert_eq!(
            dimensions(FileKind::Webp, &riff(b"VP8L", &lossless)),
            Some((100, 50))
        );
        let mut extended = vec![0u8; 4];
        extended.extend(&(5000u32 - 1).to_le_bytes()[..3]);
        extended.extend(&(7000u32 - 1).to_le_bytes()[..3]);
        assert_eq!(
            dimensions(FileKind::Webp, &riff(b"VP8X", &extended)),
            Some((5000, 7000))
        );
        assert_eq!(dimensions(FileKind::Webp, &riff(b"ALPH", &[0; 10])), None);
    }

    #[test]
    fn jpeg_frames_are_found_past_other_segments() {
        let mut jpeg = vec![0xff, 0xd8];
        // An APP0 segment, fill bytes, then a progressive frame.
        jpeg.extend([0xff, 0xe0, 0x00, 0x04, 0xaa, 0xbb]);
        jpeg.extend([0xff, 0xff, 0xc2, 0x00, 0x11, 0x08]);
        jpeg.extend(1200u16.to_be_bytes());
        jpeg.extend(1600u16.to_be_bytes());
        assert_eq!(dimensions(FileKind::Jpeg, &jpeg), Some((1600, 1200)));
        // A Huffman table is not a frame; a scan before a frame is no image.
        let no_frame = [0xff, 0xd8, 0xff, 0xc4, 0x00, 0x02, 0xff, 0xda, 0x00, 0x02];
        assert_eq!(dimensions(FileKind::Jpeg, &no_frame), None);
        assert_eq!(dimensions(FileKind::Jpeg, &[0xff, 0xd8, 0xff]), None);
        assert_eq!(dimensions(FileKind::Pdf, b"%PDF-1.7"), None);
    }

    #[test]
    fn a_bomb_is_refused_before_decoding() {
        assert_eq!(check_pixels(8064, 6048), Ok(()), "a 48-megapixel photo");
        assert_eq!(
            check_pixels(50_000, 50_000).map_err(|e| e.code()),
            Err("attach_image_too_many_pixels")
        );
    }

    #[test]
    fn hostile_headers_never_panic() {
        bolero::check!().with_type::<Vec<u8>>().for_each(|bytes| {
            for kind in [FileKind::Png, FileKind::Gif, FileKind::Webp, FileKind::Jpeg] {
                let _ = dimensions(kind, bytes);
            }
        });
    }
}
