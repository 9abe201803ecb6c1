//! A small PDF writer: numbered objects, content streams, an xref table with the real
//! byte offsets, and a trailer; enough for pdf_oxide to read, and to break on purpose.

/// PDF objects, numbered from 1 in order.
#[derive(Default)]
pub struct Pdf {
    objects: Vec<Vec<u8>>,
}

impl Pdf {
    /// Adds an object (its body between `N 0 obj` and `endobj`); returns its number.
    pub fn add(&mut self, body: impl Into<Vec<u8>>) -> usize {
        self.objects.push(body.into());
        self.objects.len()
    }

    /// Sets object `n`'s body (for objects that refer to later ones).
    pub fn set(&mut self, n: usize, body: impl Into<Vec<u8>>) {
        self.objects[n - 1] = body.into();
    }

    /// Adds a stream object.
    pub fn stream(&mut self, dict: &str, data: &[u8]) -> usize {
        let mut body = format!("<< {dict} /Length {} >>\nstream\n", data.len()).into_bytes();
        body.extend_from_slice(data);
        body.extend_from_slice(b"\nendstream");
        self.add(body)
    }

    /// The file: header, objects, xref, trailer (`/Root 1 0 R` plus `trailer_extra`).
    /// With `prev_self`, the trailer's `/Prev` points at this very xref table.
    pub fn finish(&self, trailer_extra: &str, prev_self: bool) -> Vec<u8> {
        let mut out = b"%PDF-1.4\n%\xE2\xE3\xCF\xD3\n".to_vec();
        let mut offsets = Vec::new();
        for (i, body) in self.objects.iter().enumerate() {
            offsets.push(out.len());
            out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
            out.extend_from_slice(body);
            out.extend_from_slice(b"\nendobj\n");
        }
        let xref = out.len();
        out.extend_from_slice(format!("xref\n0 {}\n", self.objects.len() + 1).as_bytes());
        out.extend_from_slice(b"0000000000 65535 f \n");
        for offset in offsets {
            out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
        }
        let prev = if prev_self {
            format!(" /Prev {xref}")
        } else {
            String::new()
        };
        out.extend_from_slice(
            format!(
                "trailer\n<< /Size {} /Root 1 0 R{prev} {trailer_extra} >>\nstartxref\n{xref}\n%%EOF\n",
                self.objects.len() + 1
            )
            .as_bytes(),
        );
        out
    }
}

/// A PDF with one page per entry of `pages`: `Some(text)` draws the text in Helvetica,
/// `None` only paints a 1×1 grey image over the page (a scan, no text).
pub fn pdf_pages(pages: &[Option<&str>]) -> Vec<u8> {
    let mut pdf = Pdf::default();
    pdf.add("<< /Type /Catalog /Pages 2 0 R >>");
    pdf.add("");
    let font = pdf.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
    let image = pdf.stream(
        "/Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8",
        &[0x80],
    );
    let mut kids = Vec::new();
    for page in pages {
        let (content, resources) = match page {
            Some(text) => (
                format!("BT /F1 12 Tf 72 720 Td ({text}) Tj ET"),
                format!("/Font << /F1 {font} 0 R >>"),
            ),
            None => (
                "q 540 0 0 720 36 36 cm /Im1 Do Q".to_string(),
                format!("/XObject << /Im1 {image} 0 R >>"),
            ),
        };
        let stream = pdf.stream("", content.as_bytes());
        let page = pdf.add(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << {resources} >> /Contents {stream} 0 R >>"
        ));
        kids.push(format!("{page} 0 R"));
    }
    pdf.set(
        2,
        format!(
            "<< /Type /Pages /Kids [{}] /Count {} >>",
            kids.join(" "),
            kids.len()
        ),
    );
    pdf.finish("", false)
}

/// A PDF whose pages each draw their text.
pub fn text_pdf(pages: &[&str]) -> Vec<u8> {
    pdf_pages(&pages.iter().map(|p| Some(*p)).collect::<Vec<_>>())
}

/// A PDF of `pages` scanned pages.
pub fn scanned_pdf(pages: usize) -> Vec<u8> {
    pdf_pages(&vec![None; pages])
}

/// A PDF whose page tree's `/Kids` holds the tree itself and whose xref `/Prev` points at
/// itself.
pub fn looping_pdf() -> Vec<u8> {
    let mut pdf = Pdf::default();
    pdf.add("<< /Type /Catalog /Pages 2 0 R >>");
    pdf.add("<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>");
    pdf.add("<< /Type /Pages /Parent 2 0 R /Kids [3 0 R 2 0 R] /Count 1000000 >>");
    pdf.finish("", true)
}

/// A text PDF whose trailer names a standard-security `/Encrypt` dictionary whose
/// passwords the empty password does not open.
pub fn encrypted_pdf() -> Vec<u8> {
    let mut pdf = Pdf::default();
    pdf.add("<< /Type /Catalog /Pages 2 0 R >>");
    pdf.add("");
    let font = pdf.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
    let stream = pdf.stream("", b"BT /F1 12 Tf 72 720 Td (secret) Tj ET");
    let page = pdf.add(format!(
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 {font} 0 R >> >> /Contents {stream} 0 R >>"
    ));
    pdf.set(2, format!("<< /Type /Pages /Kids [{page} 0 R] /Count 1 >>"));
    let hex32 = "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF";
    let encrypt = pdf.add(format!(
        "<< /Filter /Standard /V 1 /R 2 /O <{hex32}> /U <{}> /P -44 >>",
        hex32.chars().rev().collect::<String>()
    ));
    pdf.finish(
        &format!("/Encrypt {encrypt} 0 R /ID [<00112233445566778899AABBCCDDEEFF> <00112233445566778899AABBCCDDEEFF>]"),
        false,
    )
}

/// `pdf` with its first in-use xref entry damaged (its line end overwritten), so the
/// reader has to recover the object without the table.
pub fn damage_first_xref_entry(mut pdf: Vec<u8>) -> Vec<u8> {
    let xref = pdf
        .windows(5)
        .position(|w| w == b"xref\n")
        .expect("an xref table");
    let entry = pdf[xref..]
        .windows(9)
        .position(|w| w == b"00000 n \n")
        .expect("an in-use entry");
    pdf[xref + entry + 8] ^= 0xA5;
    pdf
}
