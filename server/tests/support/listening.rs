//! Whether a given process is the one listening on a loopback TCP port.
//!
//! A port found free can be taken by another test before the child meant for it binds
//! it; then a connect succeeds, but to the wrong process, and the child exits a moment
//! later. On Linux the kernel says who owns a listening socket: `/proc/net/tcp{,6}` name
//! the socket's inode, `/proc/<pid>/fd` the process's sockets. Elsewhere only a connect
//! is possible. Shared by the server's tests and the end-to-end harness (by path).

/// True when process `pid` itself holds a socket listening on `port`.
#[cfg(target_os = "linux")]
pub fn listens_on(pid: u32, port: u16) -> bool {
    let inodes = listening_inodes(port);
    if inodes.is_empty() {
        return false;
    }
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.filter_map(Result::ok).any(|fd| {
        std::fs::read_link(fd.path()).is_ok_and(|target| {
            let target = target.to_string_lossy();
            target
                .strip_prefix("socket:[")
                .and_then(|rest| rest.strip_suffix(']'))
                .and_then(|inode| inode.parse::<u64>().ok())
                .is_some_and(|inode| inodes.contains(&inode))
        })
    })
}

/// The inodes of the sockets in state LISTEN on `port`, IPv4 and IPv6.
#[cfg(target_os = "linux")]
fn listening_inodes(port: u16) -> Vec<u64> {
    const LISTEN: &str = "0A";
    let wanted = format!("{port:04X}");
    ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .filter_map(|table| std::fs::read_to_string(table).ok())
        .flat_map(|table| {
            table
                .lines()
                .skip(1)
                .filter_map(|line| {
                    let fields: Vec<&str> = line.split_whitespace().collect();
                    let local_port = fields.get(1)?.rsplit(':').next()?;
                    (local_port == wanted && *fields.get(3)? == LISTEN)
                        .then(|| fields.get(9)?.parse().ok())
                        .flatten()
                })
                .collect::<Vec<u64>>()
        })
        .collect()
}

/// Without `/proc`: something answers on `port` (the caller must also check the child
/// is still running).
#[cfg(not(target_os = "linux"))]
pub fn listens_on(_pid: u32, port: u16) -> bool {
    std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
}
