//! The `hearth` binary: parse the configuration, refuse unsafe settings, load the app,
//! bind, serve until SIGINT or SIGTERM. `hearth healthcheck` probes a running server;
//! `hearth doc-parse-worker` is the child that parses one document (it runs before any
//! async runtime exists, so its memory limit counts the parser alone).

use std::process::ExitCode;

use clap::Parser;
use hearth_server::app::router;
use hearth_server::byok::{self, ByokKeys};
use hearth_server::config::{ByokCommand, Cli, Command, Config};
use hearth_server::kv::KvStore;
use hearth_server::state::AppState;
use hearth_server::static_files::StaticAssets;
use hearth_server::{healthcheck, logging, shutdown};

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(Command::DocParseWorker(args)) = &cli.command {
        return hearth_server::doc_parse::worker::run(args);
    }
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime.block_on(serve(cli)),
        Err(error) => {
            eprintln!("hearth: cannot start the async runtime: {error}");
            ExitCode::from(1)
        }
    }
}

async fn serve(cli: Cli) -> ExitCode {
    let config = cli.config;
    match cli.command {
        Some(Command::Healthcheck) => {
            return match healthcheck::check(config.addr) {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => {
                    eprintln!("hearth healthcheck: {error}");
                    ExitCode::FAILURE
                }
            };
        }
        Some(Command::Byok {
            command: ByokCommand::Generate,
        }) => return generate_byok_key(),
        Some(Command::DocParseWorker(_)) | None => {}
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
    let byok = match load_byok(&config) {
        Ok(keys) => keys,
        Err(error) => {
            eprintln!("hearth: BYOK key: {error}");
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
    let shutdown = match shutdown::Shutdown::install() {
        Ok(shutdown) => shutdown,
        Err(error) => {
            eprintln!("hearth: cannot install signal handlers: {error}");
            return ExitCode::from(1);
        }
    };
    let listener = match tokio::net::TcpListener::bind(config.addr).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("hearth: cannot listen on {}: {error}", config.addr);
            return ExitCode::from(1);
        }
    };
    let local = listener.local_addr().unwrap_or(config.addr);
    tracing::info!("Hearth is running at http://{local}/");
    fn set(v: &Option<String>) -> Option<&str> {
        v.as_deref().filter(|u| !u.trim().is_empty())
    }
    let kv = match (
        set(&config.redis_url),
        set(&config.upstash_redis_rest_url),
        set(&config.upstash_redis_rest_token),
    ) {
        (Some(url), _, _) => match KvStore::redis(url).await {
            Ok(store) => store,
            Err(error) => {
                // Fail closed: never run with per-instance state when a shared store was asked for.
                eprintln!("hearth: REDIS_URL is set but Redis does not answer: {error}");
                return ExitCode::from(2);
            }
        },
        (None, Some(url), Some(token)) => match KvStore::upstash(url, token).await {
            Ok(store) => store,
            Err(error) => {
                eprintln!(
                    "hearth: UPSTASH_REDIS_REST_URL is set but Upstash (Redis) does not answer: {error}"
                );
                return ExitCode::from(2);
            }
        },
        _ => KvStore::memory(),
    };
    let state = match AppState::new(&config, assets, Some(byok), kv) {
        Ok(state) => state,
        Err(error) => {
            eprintln!("hearth: cannot create the outbound client: {error}");
            return ExitCode::from(1);
        }
    };
    let app = router(state);
    let service = app.into_make_service_with_connect_info::<std::net::SocketAddr>();
    if let Err(error) = axum::serve(listener, service)
        .with_graceful_shutdown(shutdown.wait())
        .await
    {
        eprintln!("hearth: server error: {error}");
        return ExitCode::from(1);
    }
    tracing::info!("stopped");
    ExitCode::SUCCESS
}

/// The key from the environment, else the one kept in the data directory.
fn load_byok(config: &Config) -> Result<ByokKeys, String> {
    match config
        .byok_private_key_pem
        .as_deref()
        .filter(|p| !p.trim().is_empty())
    {
        Some(pem) => {
            ByokKeys::from_pem(pem, config.byok_key_id.as_deref()).map_err(|e| e.to_string())
        }
        None => {
            let dir = config
                .data_dir
                .clone()
                .unwrap_or_else(byok::default_data_dir);
            // Everything under dist/ is served to anyone: a key there would be public.
            let inside_dist = match (dir.canonicalize(), config.dist_dir.canonicalize()) {
                (Ok(data), Ok(dist)) => data.starts_with(dist),
                _ => dir.starts_with(&config.dist_dir),
            };
            if inside_dist {
                return Err(format!(
                    "the data directory {} is inside the served dist directory; choose another HEARTH_DATA_DIR",
                    dir.display()
                ));
            }
            ByokKeys::load_or_create(&dir).map_err(|e| e.to_string())
        }
    }
}

fn generate_byok_key() -> ExitCode {
    match ByokKeys::generate() {
        Ok((keys, pem)) => {
            println!(
                "# Hearth BYOK envelope key. Keep it secret; give every instance the same two values."
            );
            println!("BYOK_KEY_ID={}", keys.kid());
            println!("BYOK_PRIVATE_KEY_PEM=\"{}\"", pem.trim_end());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("hearth byok generate: {error}");
            ExitCode::FAILURE
        }
    }
}
