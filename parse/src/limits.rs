//! The bounds every parse runs within (DESIGN principle 4: every input from outside has a
//! finite cap and a clear error past it; zero never means unlimited).

/// How much a parse may read and write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// The largest input accepted, in bytes; a larger file is `ParseError::TooLarge`
    /// before anything is parsed. Default 50 MiB.
    pub max_input_bytes: u64,
    /// The most Markdown produced, in bytes (UTF-8). Past it the text is cut on a
    /// character boundary, parsing stops and `Note::OutputTruncated` says where. Also the
    /// cap on MinerU's `full.md`, which is refused past it. Default 8 MiB.
    pub max_output_bytes: usize,
    /// The most PDF pages read; the rest are skipped with `Note::PagesNotRead`.
    /// Default 2,000.
    pub max_pages: u32,
    /// The bounds of every ZIP-based format (DOCX, XLSX, PPTX, ODT, EPUB, MinerU results).
    pub zip: ZipLimits,
}

/// The bounds of reading a ZIP archive. Sizes are measured while inflating, never taken
/// from the archive's own declarations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZipLimits {
    /// The most entries an archive may list (counted before its directory is parsed).
    /// Default 10,000.
    pub max_entries: usize,
    /// The most bytes inflated from one archive, over all entries read. Default 512 MiB.
    pub max_total_inflated: u64,
    /// The most bytes inflated from one entry. Default 256 MiB.
    pub max_entry_inflated: u64,
    /// The highest ratio of inflated to compressed bytes actually read, checked once an
    /// entry has inflated past 1 MiB (small, very repetitive XML parts legitimately
    /// compress further). Default 100.
    pub max_ratio: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_input_bytes: 50 * 1024 * 1024,
            max_output_bytes: 8 * 1024 * 1024,
            max_pages: 2_000,
            zip: ZipLimits::default(),
        }
    }
}

impl Default for ZipLimits {
    fn default() -> Self {
        ZipLimits {
            max_entries: 10_000,
            max_total_inflated: 512 * 1024 * 1024,
            max_entry_inflated: 256 * 1024 * 1024,
            max_ratio: 100,
        }
    }
}
