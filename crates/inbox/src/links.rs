//! One-question links: a capability that opens exactly one
//! question, for a notification to carry instead of a token.
//!
//! A capability is `base64url(id ‖ expiry ‖ tag)` without padding:
//! - `id`: the question's id (its 8 letters);
//! - `expiry`: milliseconds since the Unix epoch, 8 bytes big-endian;
//! - `tag`: HMAC-SHA256 (ring) over a domain string, the id and the expiry,
//!   keyed by the inbox's [`LinkKey`] (32 random bytes kept in the store, so
//!   that every replica of one inbox honours the others' links).
//!
//! 48 bytes, 64 characters. Verifying recomputes the tag and compares in
//! constant time (`ring::hmac::verify`); a valid capability only names a
//! question id and says it was issued before its expiry: whether that
//! question is still open is the store's to say (the routes ask it).
//!
//! A choice signature (an ntfy action button) binds the id, one option id
//! and the expiry under another domain string, so that a capability's tag
//! is never a valid choice signature, nor the other way round.

use ring::hmac;

/// Bytes in a link key (the store makes and keeps it).
pub const KEY_LEN: usize = crate::store::LINK_KEY_LEN;
/// Characters of a question id ([`crate::store::ID_LEN`]).
const ID_LEN: usize = crate::store::ID_LEN;
/// Bytes of an HMAC-SHA256 tag.
const TAG_LEN: usize = 32;
/// Bytes of a decoded capability: id, expiry, tag.
const CAPABILITY_LEN: usize = ID_LEN + 8 + TAG_LEN;
/// Domain strings: what a tag is for, so that one kind never passes for another.
const CAPABILITY_DOMAIN: &[u8] = b"ask_user link v1\0";
const CHOICE_DOMAIN: &[u8] = b"ask_user choice v1\0";
/// Longest option id a choice signature covers (ids are short; a longer one
/// in a URL is refused before any work).
pub const MAX_OPTION_ID: usize = 200;

/// Why a capability or a choice signature is refused. The routes answer
/// every kind alike (a guess learns nothing), but tests and logs tell them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    /// Not base64url, not the right length, or its id is not an id.
    #[error("this link is not one the inbox made")]
    Malformed,
    /// The tag does not match (changed, or made with another key).
    #[error("this link is not one the inbox made")]
    BadSignature,
    /// Signed, and past its expiry.
    #[error("this link has expired")]
    Expired,
}

/// The inbox's key for links: 32 random bytes.
pub struct LinkKey {
    key: hmac::Key,
}

impl std::fmt::Debug for LinkKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LinkKey(..)")
    }
}

impl LinkKey {
    /// The key from its bytes (as the store keeps them).
    pub fn from_bytes(bytes: &[u8; KEY_LEN]) -> LinkKey {
        LinkKey {
            key: hmac::Key::new(hmac::HMAC_SHA256, bytes),
        }
    }

    /// The capability for question `question_id`, good until `expires_ms`.
    pub fn issue(&self, question_id: &str, expires_ms: u64) -> String {
        let mut bytes = Vec::with_capacity(CAPABILITY_LEN);
        bytes.extend_from_slice(question_id.as_bytes());
        bytes.extend_from_slice(&expires_ms.to_be_bytes());
        let tag = hmac::sign(&self.key, &capability_message(question_id, expires_ms));
        bytes.extend_from_slice(tag.as_ref());
        encode(&bytes)
    }

    /// The question id a capability opens, if this key made it and it has
    /// not expired at `now_ms`.
    pub fn verify(&self, capability: &str, now_ms: u64) -> Result<String, LinkError> {
        self.open(capability, now_ms).map(|(id, _)| id)
    }

    /// [`LinkKey::verify`], with the capability's expiry (a choice
    /// signature binds it).
    pub fn open(&self, capability: &str, now_ms: u64) -> Result<(String, u64), LinkError> {
        let bytes = decode(capability).ok_or(LinkError::Malformed)?;
        if bytes.len() != CAPABILITY_LEN {
            return Err(LinkError::Malformed);
        }
        let (id, rest) = bytes.split_at(ID_LEN);
        let (expiry, tag) = rest.split_at(8);
        let id = std::str::from_utf8(id).map_err(|_| LinkError::Malformed)?;
        if !crate::store::is_id(id) {
            return Err(LinkError::Malformed);
        }
        let expires_ms = u64::from_be_bytes(expiry.try_into().map_err(|_| LinkError::Malformed)?);
        hmac::verify(&self.key, &capability_message(id, expires_ms), tag)
            .map_err(|_| LinkError::BadSignature)?;
        if now_ms >= expires_ms {
            return Err(LinkError::Expired);
        }
        Ok((id.to_string(), expires_ms))
    }

    /// The signature of "answer `question_id` with option `option_id`",
    /// good until `expires_ms` (an ntfy action button's URL carries it).
    pub fn sign_choice(&self, question_id: &str, option_id: &str, expires_ms: u64) -> String {
        let tag = hmac::sign(
            &self.key,
            &choice_message(question_id, option_id, expires_ms),
        );
        encode(tag.as_ref())
    }

    /// Whether `signature` is this key's for that id, option and expiry,
    /// and the expiry is after `now_ms`.
    pub fn verify_choice(
        &self,
        question_id: &str,
        option_id: &str,
        expires_ms: u64,
        signature: &str,
        now_ms: u64,
    ) -> Result<(), LinkError> {
        if option_id.len() > MAX_OPTION_ID {
            return Err(LinkError::Malformed);
        }
        let tag = decode(signature).ok_or(LinkError::Malformed)?;
        if tag.len() != TAG_LEN {
            return Err(LinkError::Malformed);
        }
        hmac::verify(
            &self.key,
            &choice_message(question_id, option_id, expires_ms),
            &tag,
        )
        .map_err(|_| LinkError::BadSignature)?;
        if now_ms >= expires_ms {
            return Err(LinkError::Expired);
        }
        Ok(())
    }
}

fn capability_message(id: &str, expires_ms: u64) -> Vec<u8> {
    let mut message = CAPABILITY_DOMAIN.to_vec();
    message.extend_from_slice(id.as_bytes());
    message.extend_from_slice(&expires_ms.to_be_bytes());
    message
}

/// Lengths first, so that no two (id, option) pairs make the same bytes.
fn choice_message(id: &str, option_id: &str, expires_ms: u64) -> Vec<u8> {
    let mut message = CHOICE_DOMAIN.to_vec();
    for part in [id, option_id] {
        message.extend_from_slice(&(part.len() as u64).to_be_bytes());
        message.extend_from_slice(part.as_bytes());
    }
    message.extend_from_slice(&expires_ms.to_be_bytes());
    message
}

/// `{base}/l/{capability}`: the page of one question.
pub fn link_url(base: &str, capability: &str) -> String {
    format!("{}/l/{capability}", base.trim_end_matches('/'))
}

/// `{base}/l/{capability}/choose/{option}/{signature}`: the POST target of
/// an action button (the option id percent-encoded).
pub fn choice_url(base: &str, capability: &str, option_id: &str, signature: &str) -> String {
    format!(
        "{}/choose/{}/{signature}",
        link_url(base, capability),
        percent_encode(option_id)
    )
}

/// Every byte but RFC 3986's unreserved ones, as %XX.
pub fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The inverse of [`percent_encode`] (any %XX); `None` for a broken escape
/// or bytes that are not UTF-8.
pub fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// URL-safe base64 without padding (RFC 4648 §5). Hand-written: a few lines
/// instead of a crate in the binary.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

/// The inverse of [`encode`]; `None` for any other character, padding, a
/// length no encoding has, or unused bits that are not zero (so that each
/// byte string has exactly one accepted spelling).
pub fn decode(text: &str) -> Option<Vec<u8>> {
    if text.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for chunk in text.as_bytes().chunks(4) {
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            let value = ALPHABET.iter().position(|a| a == c)?;
            n |= (value as u32) << (18 - 6 * i);
        }
        let bytes = chunk.len() - 1;
        let unused = n & (0x00FF_FFFF >> (8 * bytes));
        if unused != 0 {
            return None;
        }
        out.extend((0..bytes).map(|i| (n >> (16 - 8 * i)) as u8));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_800_000_000_000;

    fn key() -> LinkKey {
        LinkKey::from_bytes(&[7; KEY_LEN])
    }

    #[test]
    fn base64url_round_trips_every_length_without_padding() {
        for len in 0..70 {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            let text = encode(&bytes);
            assert!(!text.contains('=') && !text.contains('+') && !text.contains('/'));
            assert_eq!(decode(&text).as_deref(), Some(&bytes[..]), "{len}");
        }
        assert_eq!(encode(b"\xfb\xff"), "-_8");
        assert_eq!(encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(encode(b"fo"), "Zm8");
    }

    #[test]
    fn base64url_refuses_padding_other_alphabets_and_a_second_spelling() {
        for text in ["Zm8=", "Zm+v", "Zm/v", "Z", "Zm9vY", "Zm9 ", "Zm9\u{e9}"] {
            assert_eq!(decode(text), None, "{text}");
        }
        // "Zm8" is "fo"; "Zm9" has the same bytes with a non-zero unused bit.
        assert_eq!(decode("Zm8").as_deref(), Some(&b"fo"[..]));
        assert_eq!(decode("Zm9"), None);
    }

    #[test]
    fn a_capability_opens_its_question_until_its_expiry() {
        let key = key();
        let capability = key.issue("abcdefgh", NOW + 1000);
        assert_eq!(capability.len(), 64, "{capability}");
        assert_eq!(key.verify(&capability, NOW), Ok("abcdefgh".to_string()));
        assert_eq!(key.verify(&capability, NOW + 999), Ok("abcdefgh".into()));
        assert_eq!(key.verify(&capability, NOW + 1000), Err(LinkError::Expired));
        assert_eq!(
            key.open(&capability, NOW),
            Ok(("abcdefgh".into(), NOW + 1000))
        );
    }

    #[test]
    fn another_key_or_any_flipped_bit_is_refused() {
        let key = key();
        let capability = key.issue("abcdefgh", NOW + 1000);
        let other = LinkKey::from_bytes(&[8; KEY_LEN]);
        assert_eq!(other.verify(&capability, NOW), Err(LinkError::BadSignature));
        let bytes = decode(&capability).unwrap();
        for index in 0..bytes.len() {
            for bit in 0..8 {
                let mut changed = bytes.clone();
                changed[index] ^= 1 << bit;
                let result = key.verify(&encode(&changed), NOW);
                assert!(
                    matches!(result, Err(LinkError::BadSignature | LinkError::Malformed)),
                    "byte {index} bit {bit}: {result:?}"
                );
            }
        }
    }

    #[test]
    fn an_id_swapped_into_a_capability_is_refused() {
        let key = key();
        let capability = key.issue("abcdefgh", NOW + 1000);
        let mut bytes = decode(&capability).unwrap();
        bytes[..ID_LEN].copy_from_slice(b"zzzzzzzz");
        assert_eq!(
            key.verify(&encode(&bytes), NOW),
            Err(LinkError::BadSignature)
        );
        // A later expiry written in: refused too.
        let mut bytes = decode(&capability).unwrap();
        bytes[ID_LEN..ID_LEN + 8].copy_from_slice(&u64::MAX.to_be_bytes());
        assert_eq!(
            key.verify(&encode(&bytes), NOW),
            Err(LinkError::BadSignature)
        );
    }

    #[test]
    fn truncated_extended_or_garbage_capabilities_are_malformed() {
        let key = key();
        let capability = key.issue("abcdefgh", NOW + 1000);
        for text in [
            "",
            "x",
            &capability[..63],
            &capability[..60],
            &format!("{capability}A"),
            &format!("{capability}AAAA"),
            "../../etc/passwd",
            "%2e%2e",
            &"A".repeat(64),
        ] {
            let result = key.verify(text, NOW);
            assert!(
                matches!(result, Err(LinkError::Malformed | LinkError::BadSignature)),
                "{text:?}: {result:?}"
            );
        }
        // An id outside the alphabet, even signed, is not an id.
        let bad = key.issue("ABCDEFGH", NOW + 1000);
        assert_eq!(key.verify(&bad, NOW), Err(LinkError::Malformed));
    }

    #[test]
    fn a_choice_signature_binds_its_id_option_and_expiry() {
        let key = key();
        let signature = key.sign_choice("abcdefgh", "yes", NOW + 1000);
        assert_eq!(
            key.verify_choice("abcdefgh", "yes", NOW + 1000, &signature, NOW),
            Ok(())
        );
        for (id, option, expiry) in [
            ("abcdefgh", "no", NOW + 1000),
            ("abcdefgz", "yes", NOW + 1000),
            ("abcdefgh", "yes", NOW + 2000),
            ("abcdefgh", "yes ", NOW + 1000),
        ] {
            assert_eq!(
                key.verify_choice(id, option, expiry, &signature, NOW),
                Err(LinkError::BadSignature),
                "{id} {option} {expiry}"
            );
        }
        assert_eq!(
            key.verify_choice("abcdefgh", "yes", NOW + 1000, &signature, NOW + 1000),
            Err(LinkError::Expired)
        );
        assert_eq!(
            key.verify_choice("abcdefgh", "yes", NOW + 1000, &signature[1..], NOW),
            Err(LinkError::Malformed)
        );
        let mut flipped = decode(&signature).unwrap();
        flipped[31] ^= 1;
        assert_eq!(
            key.verify_choice("abcdefgh", "yes", NOW + 1000, &encode(&flipped), NOW),
            Err(LinkError::BadSignature)
        );
    }

    #[test]
    fn an_option_id_past_the_limit_is_refused_before_any_work() {
        let key = key();
        let long = "o".repeat(MAX_OPTION_ID + 1);
        let signature = key.sign_choice("abcdefgh", &long, NOW + 1000);
        assert_eq!(
            key.verify_choice("abcdefgh", &long, NOW + 1000, &signature, NOW),
            Err(LinkError::Malformed)
        );
        let longest = "o".repeat(MAX_OPTION_ID);
        let signature = key.sign_choice("abcdefgh", &longest, NOW + 1000);
        assert_eq!(
            key.verify_choice("abcdefgh", &longest, NOW + 1000, &signature, NOW),
            Ok(())
        );
    }

    #[test]
    fn a_capability_tag_is_not_a_choice_signature() {
        let key = key();
        let capability = key.issue("abcdefgh", NOW + 1000);
        let tag = encode(&decode(&capability).unwrap()[ID_LEN + 8..]);
        assert_eq!(
            key.verify_choice("abcdefgh", "", NOW + 1000, &tag, NOW),
            Err(LinkError::BadSignature)
        );
    }

    #[test]
    fn urls_put_the_capability_and_an_encoded_option_under_l() {
        assert_eq!(link_url("https://h:1/", "CAP"), "https://h:1/l/CAP");
        assert_eq!(
            choice_url("https://h", "CAP", "a b/c", "SIG"),
            "https://h/l/CAP/choose/a%20b%2Fc/SIG"
        );
        assert_eq!(percent_decode("a%20b%2Fc").as_deref(), Some("a b/c"));
        assert_eq!(percent_decode("%zz"), None);
        assert_eq!(percent_decode("%2"), None);
        assert_eq!(percent_decode("%ff"), None);
    }
}
