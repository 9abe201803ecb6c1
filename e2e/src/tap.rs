//! A recording TCP proxy between the browser and the edge. Tests point the browser at
//! the tap instead of the server, so they can check the bytes that actually crossed the
//! wire (for instance, that no plaintext key ever reached the edge) rather than what
//! the app believes it sent. [`Tap::cut`] drops every open connection at once, as a
//! network cut or a proxy restart would.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A proxy on a free loopback port forwarding to `127.0.0.1:<target>`.
pub struct Tap {
    port: u16,
    sent: Arc<Mutex<Vec<u8>>>,
    accept: tokio::task::JoinHandle<()>,
    open: Arc<Mutex<Vec<tokio::task::AbortHandle>>>,
}

/// A tap's port, bound but not yet forwarding: the edge answers only for the hosts it
/// knows, so it is started with this one allowed ([`Listening::host`]) before the tap
/// forwards to it.
pub struct Listening {
    listener: TcpListener,
    port: u16,
}

impl Listening {
    /// The `Host` the browser will send through the tap (for `HEARTH_ALLOWED_HOSTS`).
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Starts forwarding every connection to `target` on the loopback interface.
    pub fn forward_to(self, target: u16) -> Tap {
        let Self { listener, port } = self;
        let sent = Arc::new(Mutex::new(Vec::new()));
        let open = Arc::new(Mutex::new(Vec::<tokio::task::AbortHandle>::new()));
        let record = sent.clone();
        let tracked = open.clone();
        let accept = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let record = record.clone();
                let connection = tokio::spawn(async move {
                    if let Ok(server) = TcpStream::connect(("127.0.0.1", target)).await {
                        forward(client, server, record).await;
                    }
                });
                let mut tracked = tracked.lock().unwrap_or_else(|e| e.into_inner());
                tracked.retain(|handle| !handle.is_finished());
                tracked.push(connection.abort_handle());
            }
        });
        Tap {
            port,
            sent,
            accept,
            open,
        }
    }
}

impl Tap {
    /// Binds a free loopback port for a tap.
    pub async fn listen() -> Listening {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the tap");
        let port = listener.local_addr().expect("tap address").port();
        Listening { listener, port }
    }

    /// The base URL to open in the browser.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Drops every connection open through the tap (both sides closed at once, mid-answer
    /// for a stream); new connections are forwarded as before. How many it dropped.
    pub fn cut(&self) -> usize {
        let open = std::mem::take(&mut *self.open.lock().unwrap_or_else(|e| e.into_inner()));
        let live = open.iter().filter(|handle| !handle.is_finished()).count();
        for handle in open {
            handle.abort();
        }
        live
    }

    /// Everything clients have sent through the tap so far.
    pub fn sent(&self) -> Vec<u8> {
        self.sent.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Drop for Tap {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

/// Copies both ways until either side closes, keeping a copy of the client's bytes.
async fn forward(client: TcpStream, server: TcpStream, record: Arc<Mutex<Vec<u8>>>) {
    let (mut client_read, mut client_write) = client.into_split();
    let (mut server_read, mut server_write) = server.into_split();
    let upstream = async {
        let mut buffer = vec![0u8; 16 * 1024];
        loop {
            match client_read.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    record
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .extend_from_slice(&buffer[..n]);
                    if server_write.write_all(&buffer[..n]).await.is_err() {
                        break;
                    }
                }
            }
        }
        let _ = server_write.shutdown().await;
    };
    let downstream = async {
        let _ = tokio::io::copy(&mut server_read, &mut client_write).await;
        let _ = client_write.shutdown().await;
    };
    tokio::join!(upstream, downstream);
}
