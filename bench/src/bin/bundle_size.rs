//! `bundle-size [DIST] [BENCHMARKS.md]`: measures the release app's critical path and
//! records it in the benchmarks file. Exits non-zero when the shell budget is exceeded.

use std::path::PathBuf;
use std::process::ExitCode;

use hearth_bench::bundle::{self, AssetKind, SHELL_BUDGET_GZIP_BYTES};
use hearth_bench::record;

fn kib(bytes: u64) -> String {
    format!("{:.1} KiB", bytes as f64 / 1024.0)
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let dist = PathBuf::from(args.next().unwrap_or_else(|| "dist".into()));
    let out = PathBuf::from(args.next().unwrap_or_else(|| "docs/BENCHMARKS.md".into()));
    let report = match bundle::measure(&dist) {
        Ok(report) => report,
        Err(error) => {
            eprintln!("bundle-size: {error}");
            return ExitCode::from(2);
        }
    };
    let mut table =
        String::from("| file | kind | raw bytes | gzip -9 bytes |\n|---|---|---:|---:|\n");
    for asset in &report.assets {
        table.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            asset.path,
            asset.kind.label(),
            asset.raw,
            asset.gzip
        ));
    }
    let total_gzip = report.total_gzip();
    table.push_str(&format!(
        "| **total** | | **{}** ({}) | **{}** ({}) |\n\n",
        report.total_raw(),
        kib(report.total_raw()),
        total_gzip,
        kib(total_gzip)
    ));
    table.push_str(&format!(
        "By kind (gzip): wasm {}, js {}, css {}. Budget: {} bytes gzip; used {:.0} %. \
         Neo Chat's first load is 524 KiB gzip: this is {:.2}× of it.\n",
        report.gzip_of(AssetKind::Wasm),
        report.gzip_of(AssetKind::Js),
        report.gzip_of(AssetKind::Css),
        SHELL_BUDGET_GZIP_BYTES,
        total_gzip as f64 * 100.0 / SHELL_BUDGET_GZIP_BYTES as f64,
        total_gzip as f64 / (524.0 * 1024.0),
    ));
    let measured_at = std::env::var("BENCH_LABEL").unwrap_or_default();
    let body = format!(
        "### Critical-path transfer size of the app shell\n\n{}Measured by `make bench` \
         (`bench/run.sh`) on the release build.\n\n{table}",
        if measured_at.is_empty() {
            String::new()
        } else {
            format!("{measured_at}. ")
        }
    );
    if let Err(error) = record::write_section(&out, "bundle-size", &body) {
        eprintln!("bundle-size: cannot write {}: {error}", out.display());
        return ExitCode::from(2);
    }
    println!("{body}");
    if total_gzip > SHELL_BUDGET_GZIP_BYTES {
        eprintln!(
            "bundle-size: {total_gzip} bytes gzip exceeds the budget of {SHELL_BUDGET_GZIP_BYTES}"
        );
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
