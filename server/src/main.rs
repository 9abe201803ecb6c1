//! The `hearth` binary: parse the configuration, refuse unsafe settings, load the app,
//! bind, serve until SIGINT or SIGTERM. `hearth healthcheck` probes a running server.

use std::process::ExitCode;

use clap::Parser;
use hearth_server::app::{AppState, router};
use hearth_server::config::{Cli, Command};
use hearth_server::static_files::StaticAssets;
use hearth_server::{healthcheck, logging, shutdown};

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let config = cli.config;
    if let Some(Command::Healthcheck) = cli.command {
        return match healthcheck::check(config.addr) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("hearth healthcheck: {error}");
                ExitCode::FAILURE
            }
        };
    }
    logging::init(config.log_format);
    if let Err(error) = config.validate() {
        eprintln!("hearth: {error}");
        return ExitCode::from(2);
    }
    let assets = match StaticAssets::load(&config.dist_dir) {
        Ok(assets) => assets,
        Err(error) => {
            eprintln!("hearth: {error}");
            return ExitCode::from(2);
        }
    };
    tracing::info!(
        files = assets.len(),
        dist = %config.dist_dir.display(),
        mode = config.deployment_mode.as_str(),
        access_password = config.access_password_enabled(),
        "app loaded"
    );
    let listener = match tokio::net::TcpListener::bind(config.addr).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("hearth: cannot listen on {}: {error}", config.addr);
            return ExitCode::from(1);
        }
    };
    let local = listener.local_addr().unwrap_or(config.addr);
    tracing::info!("Hearth is running at http://{local}/");
    let app = router(AppState::new(&config, assets));
    let service = app.into_make_service_with_connect_info::<std::net::SocketAddr>();
    if let Err(error) = axum::serve(listener, service)
        .with_graceful_shutdown(shutdown::signal())
        .await
    {
        eprintln!("hearth: server error: {error}");
        return ExitCode::from(1);
    }
    tracing::info!("stopped");
    ExitCode::SUCCESS
}
