//! A recording TCP proxy between the browser and the edge. Tests point the browser at
//! the tap instead of the server, so they can check the bytes that actually crossed the
//! wire (for instance, that no plaintext key ever reached the edge) rather than what
//! the app believes it sent. [`Tap::cut`] drops every open connection at once, as a
//! network cut or a proxy restart would; [`Tap::lose_answer_to`] lets one request reach
//! the edge and drops its answer, as a connection that died in between would
//! ([`Tap::lose_every_answer_to`]: every time). [`counting_listener`] is the other end of
//! a test that nothing may reach: a host that only counts who calls.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A proxy on a free loopback port forwarding to `127.0.0.1:<target>`.
pub struct Tap {
    port: u16,
    sent: Arc<Mutex<Vec<u8>>>,
    accept: tokio::task::JoinHandle<()>,
    open: Arc<Mutex<Vec<tokio::task::AbortHandle>>>,
    lose: Arc<Mutex<Option<(String, bool)>>>,
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
        let lose = Arc::new(Mutex::new(None::<(String, bool)>));
        let record = sent.clone();
        let tracked = open.clone();
        let losing = lose.clone();
        let accept = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let record = record.clone();
                let losing = losing.clone();
                let connection = tokio::spawn(async move {
                    if let Ok(server) = TcpStream::connect(("127.0.0.1", target)).await {
                        forward(client, server, record, losing).await;
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
            lose,
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

    /// Lets the next request whose first line starts with `request_line` (`POST /api/x`)
    /// through to the edge, then drops its connection instead of forwarding the answer.
    pub fn lose_answer_to(&self, request_line: &str) {
        *self.lose.lock().unwrap_or_else(|e| e.into_inner()) =
            Some((request_line.to_string(), false));
    }

    /// Like [`Tap::lose_answer_to`], for every such request from now on (a browser tries
    /// a navigation again when its connection dies before an answer).
    pub fn lose_every_answer_to(&self, request_line: &str) {
        *self.lose.lock().unwrap_or_else(|e| e.into_inner()) =
            Some((request_line.to_string(), true));
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

/// Copies both ways until either side closes, keeping a copy of the client's bytes; an
/// answer to the request `lose` names is dropped with its connection, once (or every
/// time, when its flag says so).
async fn forward(
    client: TcpStream,
    server: TcpStream,
    record: Arc<Mutex<Vec<u8>>>,
    lose: Arc<Mutex<Option<(String, bool)>>>,
) {
    let (mut client_read, mut client_write) = client.into_split();
    let (mut server_read, mut server_write) = server.into_split();
    // The client's bytes since the edge last answered on this connection.
    let asked = Arc::new(Mutex::new(Vec::<u8>::new()));
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
                    asked
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
        let mut buffer = vec![0u8; 16 * 1024];
        loop {
            match server_read.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let request =
                        std::mem::take(&mut *asked.lock().unwrap_or_else(|e| e.into_inner()));
                    let lost_here = {
                        let mut armed = lose.lock().unwrap_or_else(|e| e.into_inner());
                        let (matches, every) =
                            armed.as_ref().map_or((false, false), |(line, every)| {
                                (request.starts_with(line.as_bytes()), *every)
                            });
                        if matches && !every {
                            *armed = None;
                        }
                        matches
                    };
                    if lost_here {
                        return true;
                    }
                    if client_write.write_all(&buffer[..n]).await.is_err() {
                        break;
                    }
                }
            }
        }
        let _ = client_write.shutdown().await;
        false
    };
    tokio::pin!(upstream, downstream);
    tokio::select! {
        // A lost answer ends both directions here, as if the line died.
        lost = &mut downstream => if !lost { (&mut upstream).await },
        () = &mut upstream => {
            let _ = (&mut downstream).await;
        }
    }
}

/// A listener on loopback that accepts and counts every connection it is offered: a
/// host that sandboxed content must never reach. Returns its port and the count.
pub async fn counting_listener() -> (u16, Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a loopback port");
    let port = listener.local_addr().expect("its address").port();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&count);
    tokio::spawn(async move {
        while let Ok((_socket, _)) = listener.accept().await {
            seen.fetch_add(1, Ordering::SeqCst);
        }
    });
    (port, count)
}
