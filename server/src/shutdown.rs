//! The signal that ends the server: SIGINT (Ctrl-C) or SIGTERM (what `docker stop`, systemd
//! and Kubernetes send). In-flight requests finish; new connections are refused.
//!
//! The handlers are installed by [`Shutdown::install`], before the listener binds: a
//! handler registered lazily (on the first poll of the serve future) leaves a window in
//! which a SIGTERM kills the process with the default action instead of a clean stop.

/// Installed signal handlers.
pub struct Shutdown {
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
}

impl Shutdown {
    /// Registers the SIGTERM and SIGINT handlers now.
    pub fn install() -> std::io::Result<Self> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(Self {
                terminate: signal(SignalKind::terminate())?,
                interrupt: signal(SignalKind::interrupt())?,
            })
        }
        #[cfg(not(unix))]
        {
            Ok(Self {})
        }
    }

    /// Resolves when the process is asked to stop.
    pub async fn wait(mut self) {
        #[cfg(unix)]
        tokio::select! {
            _ = self.interrupt.recv() => tracing::info!("SIGINT received, shutting down"),
            _ = self.terminate.recv() => tracing::info!("SIGTERM received, shutting down"),
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            tracing::info!("Ctrl-C received, shutting down");
        }
    }
}
