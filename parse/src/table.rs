//! Markdown tables, the one rendering every format with tables (DOCX, XLSX, PPTX, ODT)
//! shares: the first row is the header, rows are padded to the widest, empty trailing
//! columns are dropped, cells are one line with `|` escaped, and no table is wider than
//! [`MAX_COLUMNS`].

/// The most columns a table keeps (a spreadsheet row can address 16,384).
pub(crate) const MAX_COLUMNS: usize = 256;

/// Rows of cells being collected.
#[derive(Debug, Default)]
pub(crate) struct Table {
    pub(crate) rows: Vec<Vec<String>>,
    /// Whether a cell past [`MAX_COLUMNS`] was dropped.
    pub(crate) dropped: bool,
    /// Bytes of cell text collected, to stop collecting past the output's room.
    pub(crate) bytes: usize,
}

impl Table {
    pub(crate) fn start_row(&mut self) {
        self.rows.push(Vec::new());
    }

    /// Adds a cell to the current row (starting one if there is none).
    pub(crate) fn push_cell(&mut self, text: String) {
        if self.rows.is_empty() {
            self.start_row();
        }
        let row = self.rows.last_mut().expect("a row was started");
        if row.len() >= MAX_COLUMNS {
            self.dropped |= !text.trim().is_empty();
            return;
        }
        self.bytes += text.len() + 3;
        row.push(text);
    }

    /// Puts a cell at column `index` of the current row, padding with empty cells.
    pub(crate) fn put_cell(&mut self, index: usize, text: String) {
        if index >= MAX_COLUMNS {
            self.dropped |= !text.trim().is_empty();
            return;
        }
        if self.rows.is_empty() {
            self.start_row();
        }
        let row = self.rows.last_mut().expect("a row was started");
        while row.len() < index {
            row.push(String::new());
        }
        self.bytes += text.len() + 3;
        if row.len() == index {
            row.push(text);
        } else {
            row[index] = text;
        }
    }

    /// The table as Markdown; empty if it has no text.
    pub(crate) fn render(&self) -> String {
        let width = self
            .rows
            .iter()
            .map(|r| {
                r.iter()
                    .rposition(|c| !c.trim().is_empty())
                    .map_or(0, |i| i + 1)
            })
            .max()
            .unwrap_or(0);
        if width == 0 {
            return String::new();
        }
        let mut rows = self
            .rows
            .iter()
            .filter(|r| r.iter().any(|c| !c.trim().is_empty()));
        let mut out = String::new();
        let header = rows.next().expect("a row has text");
        line(&mut out, header, width);
        out.push('|');
        for _ in 0..width {
            out.push_str(" --- |");
        }
        out.push('\n');
        for row in rows {
            line(&mut out, row, width);
        }
        out
    }
}

fn line(out: &mut String, row: &[String], width: usize) {
    out.push('|');
    for i in 0..width {
        out.push(' ');
        if let Some(cell) = row.get(i) {
            escape_cell(out, cell);
        }
        out.push_str(" |");
    }
    out.push('\n');
}

/// A cell on one line: whitespace runs become one space, `|` is escaped.
fn escape_cell(out: &mut String, cell: &str) {
    let mut first = true;
    for word in cell.split_whitespace() {
        if !first {
            out.push(' ');
        }
        first = false;
        for c in word.chars() {
            if c == '|' {
                out.push('\\');
            }
            out.push(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_render_padded_and_escaped() {
        let mut t = Table::default();
        t.start_row();
        t.push_cell("Name".into());
        t.push_cell("Note".into());
        t.push_cell(String::new());
        t.start_row();
        t.push_cell("a|b".into());
        t.start_row();
        t.start_row();
        t.put_cell(1, "two\nlines".into());
        assert_eq!(
            t.render(),
            "| Name | Note |\n| --- | --- |\n| a\\|b |  |\n|  | two lines |\n"
        );
        assert_eq!(Table::default().render(), "");
    }

    #[test]
    fn columns_past_the_cap_are_dropped_and_flagged() {
        let mut t = Table::default();
        t.put_cell(MAX_COLUMNS + 5, "far".into());
        t.put_cell(0, "near".into());
        assert!(t.dropped);
        assert_eq!(t.render(), "| near |\n| --- |\n");
    }
}
