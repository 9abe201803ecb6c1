//! The release shell's critical path fits its size budget (bytes are deterministic, so a
//! size may fail a test; timings never do and live in bench/).

use hearth_bench::bundle::{self, AssetKind, SHELL_BUDGET_GZIP_BYTES};

#[test]
fn release_shell_fits_the_gzip_budget() {
    let report = bundle::measure(&hearth_e2e::paths::dist_dir()).expect("measure dist/");
    assert!(
        report.gzip_of(AssetKind::Wasm) > 0,
        "no wasm on the critical path"
    );
    assert!(
        report.gzip_of(AssetKind::Css) > 0,
        "no stylesheet on the critical path"
    );
    let total = report.total_gzip();
    assert!(
        total <= SHELL_BUDGET_GZIP_BYTES,
        "critical path is {total} bytes gzip, over the {SHELL_BUDGET_GZIP_BYTES} budget: {report:#?}"
    );
}
