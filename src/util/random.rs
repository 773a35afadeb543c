//! Random bytes for secrets and ids, from the system's source: the proxy's per-process cursor
//! secret, its session ids, an OAuth login's state and PKCE verifier.

/// `bytes` bytes from the system's random source (/dev/urandom), in lowercase hex: the proxy's
/// per-process secret and its session ids.
pub fn random_hex(bytes: usize) -> std::io::Result<String> {
    use std::fmt::Write as _;
    let mut raw = vec![0u8; bytes];
    std::io::Read::read_exact(&mut std::fs::File::open("/dev/urandom")?, &mut raw)?;
    let mut hex = String::with_capacity(2 * bytes);
    for b in raw {
        let _ = write!(hex, "{b:02x}");
    }
    Ok(hex)
}
