//! Real files for the tests, built by the tests: ZIP-based documents from hand-written
//! XML through the zip crate's writer, PDFs from a small writer with correct xref
//! offsets, and ZIP bombs written streaming.
#![allow(dead_code)]

pub mod office;
pub mod pdf;

use std::io::{Cursor, Write};

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

/// A deflated ZIP of `entries`, in order.
pub fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    for (name, data) in entries {
        let options = if *name == "mimetype" {
            SimpleFileOptions::default().compression_method(CompressionMethod::Stored)
        } else {
            SimpleFileOptions::default().compression_method(CompressionMethod::Deflated)
        };
        writer.start_file(*name, options).expect("start entry");
        writer.write_all(data).expect("write entry");
    }
    writer.finish().expect("finish zip").into_inner()
}

/// A ZIP whose entry `name` is `size` zero bytes, deflated while streaming (the zeros are
/// never held in memory), after the small `before` entries.
pub fn zeros_zip(before: &[(&str, &[u8])], name: &str, size: usize) -> Vec<u8> {
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .large_file(size > u32::MAX as usize);
    for (entry, data) in before {
        writer.start_file(*entry, options).expect("start entry");
        writer.write_all(data).expect("write entry");
    }
    writer.start_file(name, options).expect("start bomb");
    let chunk = vec![0u8; 1024 * 1024];
    let mut left = size;
    while left > 0 {
        let n = left.min(chunk.len());
        writer.write_all(&chunk[..n]).expect("write zeros");
        left -= n;
    }
    writer.finish().expect("finish zip").into_inner()
}

/// Positions of `needle` in `hay`.
pub fn find_all(hay: &[u8], needle: &[u8]) -> Vec<usize> {
    hay.windows(needle.len())
        .enumerate()
        .filter(|(_, w)| *w == needle)
        .map(|(i, _)| i)
        .collect()
}

/// Rewrites the uncompressed size of every entry, in its local header and its central
/// directory record, to `declared`.
pub fn lie_about_sizes(zip: &mut [u8], declared: u32) {
    for at in find_all(zip, b"PK\x03\x04") {
        zip[at + 22..at + 26].copy_from_slice(&declared.to_le_bytes());
    }
    for at in find_all(zip, b"PK\x01\x02") {
        zip[at + 24..at + 28].copy_from_slice(&declared.to_le_bytes());
    }
}

/// Sets the "encrypted" flag of every entry, in both headers.
pub fn mark_encrypted(zip: &mut [u8]) {
    for at in find_all(zip, b"PK\x03\x04") {
        zip[at + 6] |= 1;
    }
    for at in find_all(zip, b"PK\x01\x02") {
        zip[at + 8] |= 1;
    }
}
