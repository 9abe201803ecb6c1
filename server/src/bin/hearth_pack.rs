//! `hearth-pack FROM TO`: writes the app's build (`dist/`, plain or packed) into the new
//! directory `TO`, every compressible file stored only as its Brotli, which the server
//! sends as it is to browsers and decodes at start-up for other clients. The Docker image
//! ships a packed build; the server reads either kind.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [from, to] = args.as_slice() else {
        eprintln!("usage: hearth-pack FROM TO (FROM: a build of the app; TO: a new directory)");
        return ExitCode::from(2);
    };
    match hearth_server::static_files::pack::pack(from, to) {
        Ok(report) => {
            println!(
                "packed {} files ({} as Brotli): {} bytes served, {} bytes stored in {}",
                report.files,
                report.packed,
                report.bytes_in,
                report.bytes_out,
                to.display()
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("hearth-pack: {error}");
            ExitCode::from(2)
        }
    }
}
