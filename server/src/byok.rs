//! The edge's BYOK key pair and the opening of envelopes (format in `hearth_core::byok`).
//!
//! - RSA-OAEP-256 unwraps the per-request AES-256-GCM key; AES-GCM decrypts the secret
//!   with the envelope's context as AAD. Both come from aws-lc (constant-time RSA, already
//!   linked for TLS).
//! - The key comes from `BYOK_PRIVATE_KEY_PEM` (PKCS#8) and `BYOK_KEY_ID` in a hosted
//!   deployment. In local mode, without them, a key is generated once and kept in the
//!   data directory (`byok-key.pem`, mode 0600) so envelopes survive restarts; a key file
//!   readable by others is refused rather than used.
//! - The key id defaults to a fingerprint of the public key, so a rotated key changes id
//!   and clients refetch.

use std::io::Write;
use std::path::{Path, PathBuf};

use aws_lc_rs::aead::{AES_256_GCM, Aad, LessSafeKey, Nonce, UnboundKey};
use aws_lc_rs::encoding::{AsDer, Pkcs8V1Der, PublicKeyX509Der};
use aws_lc_rs::rand::{SecureRandom, SystemRandom};
use aws_lc_rs::rsa::{
    KeySize, OAEP_SHA256_MGF1SHA256, OaepPrivateDecryptingKey, OaepPublicEncryptingKey,
    PrivateDecryptingKey, PublicEncryptingKey,
};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use hearth_core::byok::{ALGORITHM, Envelope, EnvelopeError, PublicJwk, PublicKeyResponse};
use sha2::{Digest, Sha256};

/// The key file in the data directory.
pub const KEY_FILE: &str = "byok-key.pem";

/// Why the key could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// The PEM is not a PKCS#8 RSA private key.
    #[error("BYOK_PRIVATE_KEY_PEM is not a PKCS#8 RSA private key (BEGIN PRIVATE KEY)")]
    InvalidPem,
    /// The key file is readable by other users.
    #[error(
        "{path} is readable by other users; run `chmod 600 {path}` (or delete it to make a new key)"
    )]
    InsecureFile {
        /// The file.
        path: String,
    },
    /// Reading or writing the key file failed.
    #[error("cannot use {path}: {source}")]
    Io {
        /// The file or directory.
        path: String,
        /// What failed.
        source: std::io::Error,
    },
    /// The crypto library failed.
    #[error("cannot create a key pair")]
    Crypto,
}

/// The edge's envelope key.
pub struct ByokKeys {
    kid: String,
    key: OaepPrivateDecryptingKey,
    public: PublicEncryptingKey,
    jwk: PublicJwk,
}

impl std::fmt::Debug for ByokKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ByokKeys")
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

/// Reads one DER element at the start of `input`: (tag, content, rest).
fn der_element(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (length, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let count = usize::from(first & 0x7f);
        if count == 0 || count > 4 || rest.len() < count {
            return None;
        }
        let length = rest[..count]
            .iter()
            .fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
        (length, &rest[count..])
    };
    (rest.len() >= length).then(|| (tag, &rest[..length], &rest[length..]))
}

/// The modulus and exponent of an RSA SubjectPublicKeyInfo.
fn rsa_components(spki: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let (_, info, _) = der_element(spki)?;
    let (_, _algorithm, rest) = der_element(info)?;
    let (tag, bits, _) = der_element(rest)?;
    if tag != 0x03 || bits.first() != Some(&0) {
        return None;
    }
    let (_, key, _) = der_element(&bits[1..])?;
    let (_, n, rest) = der_element(key)?;
    let (_, e, _) = der_element(rest)?;
    let strip = |bytes: &[u8]| {
        let start = bytes.iter().position(|b| *b != 0).unwrap_or(bytes.len());
        bytes[start..].to_vec()
    };
    Some((strip(n), strip(e)))
}

fn pem_to_der(pem: &str) -> Option<Vec<u8>> {
    let body: String = pem
        .lines()
        .map(str::trim)
        .skip_while(|line| *line != "-----BEGIN PRIVATE KEY-----")
        .skip(1)
        .take_while(|line| *line != "-----END PRIVATE KEY-----")
        .collect();
    STANDARD.decode(body).ok().filter(|der| !der.is_empty())
}

fn der_to_pem(der: &[u8]) -> String {
    let encoded = STANDARD.encode(der);
    let mut pem = String::from("-----BEGIN PRIVATE KEY-----\n");
    for line in encoded.as_bytes().chunks(64) {
        pem.push_str(&String::from_utf8_lossy(line));
        pem.push('\n');
    }
    pem.push_str("-----END PRIVATE KEY-----\n");
    pem
}

impl ByokKeys {
    fn from_private(private: PrivateDecryptingKey, kid: Option<&str>) -> Result<Self, KeyError> {
        let public = private.public_key();
        let spki: PublicKeyX509Der = public.as_der().map_err(|_| KeyError::Crypto)?;
        let (n, e) = rsa_components(spki.as_ref()).ok_or(KeyError::Crypto)?;
        let kid = kid
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .map(str::to_string)
            .unwrap_or_else(|| {
                let digest = Sha256::digest(spki.as_ref());
                format!("k-{}", URL_SAFE_NO_PAD.encode(&digest[..9]))
            });
        let key = OaepPrivateDecryptingKey::new(private).map_err(|_| KeyError::Crypto)?;
        Ok(Self {
            public,
            jwk: PublicJwk {
                kty: "RSA".into(),
                n: URL_SAFE_NO_PAD.encode(n),
                e: URL_SAFE_NO_PAD.encode(e),
                alg: "RSA-OAEP-256".into(),
                use_: "enc".into(),
                kid: kid.clone(),
            },
            kid,
            key,
        })
    }

    /// A key from a PKCS#8 PEM and an optional key id.
    pub fn from_pem(pem: &str, kid: Option<&str>) -> Result<Self, KeyError> {
        let der = pem_to_der(pem).ok_or(KeyError::InvalidPem)?;
        let private = PrivateDecryptingKey::from_pkcs8(&der).map_err(|_| KeyError::InvalidPem)?;
        Self::from_private(private, kid)
    }

    /// A new 3072-bit key pair and its PKCS#8 PEM.
    pub fn generate() -> Result<(Self, String), KeyError> {
        let private =
            PrivateDecryptingKey::generate(KeySize::Rsa3072).map_err(|_| KeyError::Crypto)?;
        let der: Pkcs8V1Der = private.as_der().map_err(|_| KeyError::Crypto)?;
        let pem = der_to_pem(der.as_ref());
        Ok((Self::from_private(private, None)?, pem))
    }

    /// The key kept in `dir`, created there (mode 0600) on first use.
    pub fn load_or_create(dir: &Path) -> Result<Self, KeyError> {
        let path = dir.join(KEY_FILE);
        let io = |path: &Path| {
            let path = path.display().to_string();
            move |source| KeyError::Io { path, source }
        };
        match std::fs::read_to_string(&path) {
            Ok(pem) => {
                check_private(&path)?;
                Self::from_pem(&pem, None)
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                create_private_dir(dir).map_err(io(dir))?;
                let (keys, pem) = Self::generate()?;
                write_private(&path, &pem).map_err(io(&path))?;
                Ok(keys)
            }
            Err(error) => Err(io(&path)(error)),
        }
    }

    /// The key id.
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// The body of `GET /api/byok/public-key`.
    pub fn public_key(&self) -> PublicKeyResponse {
        PublicKeyResponse {
            kid: self.kid.clone(),
            alg: ALGORITHM.into(),
            public_key_jwk: self.jwk.clone(),
        }
    }

    /// Seals `secret` for this key and `context` — exactly what a browser does — for
    /// secrets the edge must hold for a while (a parse job's credential) and for tests.
    pub fn seal(&self, context: &str, secret: &str) -> Result<Envelope, KeyError> {
        let random = SystemRandom::new();
        let mut aes = [0u8; 32];
        let mut iv = [0u8; 12];
        random.fill(&mut aes).map_err(|_| KeyError::Crypto)?;
        random.fill(&mut iv).map_err(|_| KeyError::Crypto)?;
        let public =
            OaepPublicEncryptingKey::new(self.public.clone()).map_err(|_| KeyError::Crypto)?;
        let mut wrapped = vec![0u8; public.ciphertext_size()];
        let wrapped = public
            .encrypt(&OAEP_SHA256_MGF1SHA256, &aes, &mut wrapped, None)
            .map_err(|_| KeyError::Crypto)?
            .to_vec();
        let key =
            LessSafeKey::new(UnboundKey::new(&AES_256_GCM, &aes).map_err(|_| KeyError::Crypto)?);
        let mut sealed = secret.as_bytes().to_vec();
        let nonce = Nonce::try_assume_unique_for_key(&iv).map_err(|_| KeyError::Crypto)?;
        key.seal_in_place_append_tag(nonce, Aad::from(context.as_bytes()), &mut sealed)
            .map_err(|_| KeyError::Crypto)?;
        Ok(Envelope {
            v: hearth_core::byok::VERSION,
            kid: self.kid.clone(),
            alg: ALGORITHM.into(),
            iv: URL_SAFE_NO_PAD.encode(iv),
            wrapped_key: URL_SAFE_NO_PAD.encode(wrapped),
            ciphertext: URL_SAFE_NO_PAD.encode(sealed),
            context: context.into(),
        })
    }

    /// Opens `envelope`, which must have been made for `expected_context` (decided by
    /// the route, never by the client).
    pub fn open(
        &self,
        envelope: &Envelope,
        expected_context: &str,
    ) -> Result<String, EnvelopeError> {
        envelope.validate()?;
        if envelope.kid != self.kid {
            return Err(EnvelopeError::UnknownKey);
        }
        if envelope.context != expected_context {
            return Err(EnvelopeError::WrongContext);
        }
        let decode = |field: &str, what| {
            URL_SAFE_NO_PAD
                .decode(field)
                .map_err(|_| EnvelopeError::Malformed(what))
        };
        let iv = decode(&envelope.iv, "iv")?;
        let wrapped = decode(&envelope.wrapped_key, "wrappedKey")?;
        let mut sealed = decode(&envelope.ciphertext, "ciphertext")?;
        let mut aes_key = vec![0u8; self.key.min_output_size()];
        let aes_key = self
            .key
            .decrypt(&OAEP_SHA256_MGF1SHA256, &wrapped, &mut aes_key, None)
            .map_err(|_| EnvelopeError::Undecryptable)?;
        let nonce =
            Nonce::try_assume_unique_for_key(&iv).map_err(|_| EnvelopeError::Malformed("iv"))?;
        let key =
            UnboundKey::new(&AES_256_GCM, aes_key).map_err(|_| EnvelopeError::Undecryptable)?;
        let plaintext = LessSafeKey::new(key)
            .open_in_place(nonce, Aad::from(envelope.context.as_bytes()), &mut sealed)
            .map_err(|_| EnvelopeError::Undecryptable)?;
        String::from_utf8(plaintext.to_vec()).map_err(|_| EnvelopeError::Undecryptable)
    }
}

/// The data directory: `HEARTH_DATA_DIR`, else `$XDG_DATA_HOME/hearth`, else
/// `~/.local/share/hearth`, else `./.hearth-data`.
pub fn default_data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("hearth");
    }
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(home).join(".local/share/hearth");
    }
    PathBuf::from(".hearth-data")
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

#[cfg(unix)]
fn write_private(path: &Path, contents: &str) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(contents.as_bytes())?;
    file.sync_all()
}

#[cfg(not(unix))]
fn write_private(path: &Path, contents: &str) -> std::io::Result<()> {
    std::fs::write(path, contents)
}

#[cfg(unix)]
fn check_private(path: &Path) -> Result<(), KeyError> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path)
        .map_err(|source| KeyError::Io {
            path: path.display().to_string(),
            source,
        })?
        .permissions()
        .mode();
    if mode & 0o077 != 0 {
        return Err(KeyError::InsecureFile {
            path: path.display().to_string(),
        });
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_private(_path: &Path) -> Result<(), KeyError> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use hearth_core::byok::context;

    fn keys() -> ByokKeys {
        ByokKeys::generate().unwrap().0
    }

    #[test]
    fn an_envelope_opens_only_for_its_key_and_context() {
        let keys = keys();
        let ctx = context::provider("openai");
        let envelope = keys.seal(&ctx, "sk-live-秘密").unwrap();
        assert_eq!(keys.open(&envelope, &ctx).unwrap(), "sk-live-秘密");
        assert_eq!(
            keys.open(&envelope, &context::provider("anthropic")),
            Err(EnvelopeError::WrongContext)
        );
        // Relabelled to pass the context check: the AAD no longer matches.
        let mut relabelled = keys.seal(&context::plugin_auth("x"), "sk").unwrap();
        relabelled.context = ctx.clone();
        assert_eq!(
            keys.open(&relabelled, &ctx),
            Err(EnvelopeError::Undecryptable)
        );
        let mut other_kid = envelope.clone();
        other_kid.kid = "k-old".into();
        assert_eq!(keys.open(&other_kid, &ctx), Err(EnvelopeError::UnknownKey));
    }

    #[test]
    fn tampering_anywhere_is_detected() {
        let keys = keys();
        let ctx = context::provider("gemini");
        let envelope = keys.seal(&ctx, "secret").unwrap();
        let flip = |text: &str| {
            let mut bytes = URL_SAFE_NO_PAD.decode(text).unwrap();
            bytes[0] ^= 1;
            URL_SAFE_NO_PAD.encode(bytes)
        };
        for field in ["iv", "wrappedKey", "ciphertext"] {
            let mut bad = envelope.clone();
            match field {
                "iv" => bad.iv = flip(&bad.iv),
                "wrappedKey" => bad.wrapped_key = flip(&bad.wrapped_key),
                _ => bad.ciphertext = flip(&bad.ciphertext),
            }
            assert_eq!(
                keys.open(&bad, &ctx),
                Err(EnvelopeError::Undecryptable),
                "{field}"
            );
        }
        let mut short = envelope.clone();
        short.iv = URL_SAFE_NO_PAD.encode([0u8; 8]);
        assert!(keys.open(&short, &ctx).is_err());
    }

    #[test]
    fn the_pem_round_trips_and_the_jwk_matches_the_key() {
        let (keys, pem) = ByokKeys::generate().unwrap();
        let again = ByokKeys::from_pem(&pem, None).unwrap();
        assert_eq!(
            again.kid(),
            keys.kid(),
            "the default id is a fingerprint of the key"
        );
        assert_eq!(again.public_key(), keys.public_key());
        let jwk = keys.public_key().public_key_jwk;
        assert_eq!(jwk.e, "AQAB");
        assert_eq!(
            URL_SAFE_NO_PAD.decode(&jwk.n).unwrap().len(),
            384,
            "3072-bit modulus"
        );
        assert_eq!(
            ByokKeys::from_pem(&pem, Some("prod-1")).unwrap().kid(),
            "prod-1"
        );
        assert!(matches!(
            ByokKeys::from_pem("not a pem", None),
            Err(KeyError::InvalidPem)
        ));
    }

    #[test]
    fn the_local_key_file_is_private_and_reused() {
        let dir = std::env::temp_dir().join(format!("hearth-byok-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let first = ByokKeys::load_or_create(&dir).unwrap();
        let second = ByokKeys::load_or_create(&dir).unwrap();
        assert_eq!(first.kid(), second.kid());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let path = dir.join(KEY_FILE);
            assert_eq!(
                std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
                0o600
            );
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
            assert!(matches!(
                ByokKeys::load_or_create(&dir),
                Err(KeyError::InsecureFile { .. })
            ));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
