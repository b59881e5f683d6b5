//! `ask_user inbox pair [NAME]`: a phone gets a device token of its own.
//!
//! 1. The CLI asks the running inbox (its own token) for a pairing code
//!    (`POST /api/pair`). The inbox makes 256 random bits, keeps their
//!    SHA-256 in the store's tokens under the pending name `NAME pairing`
//!    (a space: no token's name can have one, so it never clashes, and the
//!    guard never takes it, [`tokens::is_pending`]), and answers the link
//!    `PUBLIC_URL/pair#CODE`. The code is in the fragment: a browser never
//!    sends it in a request line, a proxy never logs it.
//! 2. The phone opens the link; the page (`GET /pair`, no token) posts the
//!    code (`POST /api/pair/claim`, no token: counted by the server's
//!    tokenless limit). The inbox removes the pending row (whoever removes
//!    it first wins: single use, on any replica of one store), checks its
//!    age ([`CODE_MINUTES`]), and keeps a new person token named NAME. The
//!    page keeps it in the browser's localStorage and opens `/app`.
//! 3. `inbox token remove NAME` revokes it like any other token.
//!
//! Kept in the tokens table, not in the inbox's memory, so that a link made
//! by one replica is claimed on any other.

use serde::{Deserialize, Serialize};

use super::hub::Hub;
use super::store::rfc3339;
use super::store::{self, Millis, Store, StoredToken, TokenRole};
use super::tokens;
use ask_user_core::error::{AskError, Detail};
use ask_user_server::guard::{Digests, digest};

/// How long a pairing code may wait for its phone.
pub const CODE_MINUTES: u64 = 10;
const CODE_MS: Millis = CODE_MINUTES as Millis * 60 * 1000;
/// 256 bits, as hex in the link.
const CODE_BYTES: usize = 32;
/// The default names: phone-1, phone-2, …
const DEFAULT_PREFIX: &str = "phone-";

/// The guide section `pair` names when the phone cannot reach the inbox.
pub const GUIDE: &str = "docs/inbox-phone.md, \"Reach the inbox from a phone\"";

/// The row a pending code for `name` is kept under.
fn pending_name(name: &str) -> String {
    format!("{name}{}", tokens::PENDING_SUFFIX)
}

/// `POST /api/pair`'s body.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `POST /api/pair`'s answer: the link and what it pairs.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Code {
    pub url: String,
    pub name: String,
    pub expires_at: String,
}

/// What `inbox pair` prints on stdout.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PairDocument<'a> {
    pub tool: &'static str,
    pub version: u32,
    pub status: &'static str,
    pub url: &'a str,
    pub name: &'a str,
    pub expires_at: &'a str,
}

impl Code {
    pub fn document(&self) -> PairDocument<'_> {
        PairDocument {
            tool: ask_user_core::TOOL_NAME,
            version: ask_user_core::DOC_VERSION,
            status: "ok",
            url: &self.url,
            name: &self.name,
            expires_at: &self.expires_at,
        }
    }
}

/// `POST /api/pair/claim`'s body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    pub code: String,
}

/// A claimed code: the device's token, shown this once.
#[derive(Debug, Serialize)]
pub struct Device {
    pub name: String,
    pub token: String,
}

/// Why a code gave no token; the page says each plainly.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// Used already, or never made by this inbox (they look the same, so
    /// that a guess learns nothing).
    Used,
    /// Older than [`CODE_MINUTES`] (and now gone).
    Expired,
    /// A token of that name was added meanwhile.
    Taken(String),
}

impl Refused {
    pub fn reason(&self) -> &'static str {
        match self {
            Refused::Used => "used",
            Refused::Expired => "expired",
            Refused::Taken(_) => "taken",
        }
    }
}

/// The inbox's side: where a phone reaches it, and the guard's digests
/// (read again at once when a phone is paired).
#[derive(Clone)]
pub struct Pairing {
    /// The public URL's base, or `None` for a loopback-only inbox.
    pub base: Option<String>,
    pub digests: Digests,
}

/// The base a phone opens, from how the inbox listens: the public URL, else
/// the listener's own address with TLS past loopback; `None` when only this
/// machine can reach it.
pub fn reachable_base(exposure: &super::listen::Exposure, port: u16) -> Option<String> {
    if exposure.public_url.is_some() {
        return Some(exposure.page_base(port));
    }
    let ip = exposure.address.ip();
    (!ip.is_loopback() && exposure.tls.is_some()).then(|| exposure.page_base(port))
}

/// The refusal for a loopback-only inbox.
pub fn not_reachable() -> AskError {
    AskError::NotReachable(Detail::new(format!(
        "the inbox listens on loopback only, where a phone cannot reach it: restart it with --listen ADDRESS:PORT \
         and --tls-cert/--tls-key (a LAN), or --public-url https://… behind a reverse proxy, tailnet or tunnel \
         (see {GUIDE})"
    )))
}

/// Makes a pairing code for `name` (default: the first free `phone-N`).
pub fn begin(
    store: &mut dyn Store,
    base: &str,
    name: Option<&str>,
    now: Millis,
) -> Result<Result<Code, AskError>, store::Error> {
    let mut kept = store.tokens()?;
    // Codes left unclaimed past their time go now (and free their names).
    for token in &kept {
        if tokens::is_pending(&token.name) && token.added_at + CODE_MS < now {
            store.remove_token(&token.name)?;
        }
    }
    kept.retain(|token| !(tokens::is_pending(&token.name) && token.added_at + CODE_MS < now));
    let names: Vec<&str> = kept.iter().map(|t| t.name.as_str()).collect();
    let taken = |name: &str| names.contains(&name) || names.contains(&pending_name(name).as_str());
    let name = match name {
        Some(name) => {
            if let Err(message) = tokens::check_name(name) {
                return Ok(Err(AskError::InvalidField(Detail::at(message, "name"))));
            }
            if taken(name) {
                return Ok(Err(AskError::InvalidField(Detail::at(
                    format!(
                        "a token named {name:?} is kept already (or waits for its phone); pick another name, \
                         or remove it first (ask_user inbox token remove {name})"
                    ),
                    "name",
                ))));
            }
            name.to_string()
        }
        None => (1..)
            .map(|n| format!("{DEFAULT_PREFIX}{n}"))
            .find(|name| !taken(name))
            .unwrap_or_default(),
    };
    let mut bytes = [0u8; CODE_BYTES];
    getrandom::fill(&mut bytes).map_err(store::Error::Random)?;
    let code: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let row = StoredToken {
        name: pending_name(&name),
        role: TokenRole::Person,
        digest: digest(&code).to_vec(),
        added_at: now,
        groups: Vec::new(),
    };
    if !store.add_token(&row)? {
        return Ok(Err(AskError::InvalidField(Detail::at(
            format!(
                "a pairing for {name:?} was made at the same moment; run `ask_user inbox pair` again"
            ),
            "name",
        ))));
    }
    Ok(Ok(Code {
        url: format!("{}/pair#{code}", base.trim_end_matches('/')),
        name,
        expires_at: rfc3339(now + CODE_MS),
    }))
}

/// Exchanges `code` for a new person token, once.
pub fn claim(
    store: &mut dyn Store,
    code: &str,
    now: Millis,
) -> Result<Result<Device, Refused>, store::Error> {
    let wanted = digest(code);
    let Some(row) = store
        .tokens()?
        .into_iter()
        .find(|t| tokens::is_pending(&t.name) && t.digest == wanted)
    else {
        return Ok(Err(Refused::Used));
    };
    // Removed first: of two claims at once (on two replicas), one removes it.
    if !store.remove_token(&row.name)? {
        return Ok(Err(Refused::Used));
    }
    if row.added_at + CODE_MS < now {
        return Ok(Err(Refused::Expired));
    }
    let name = row
        .name
        .trim_end_matches(tokens::PENDING_SUFFIX)
        .to_string();
    match tokens::add(store, TokenRole::Person, &name, &[])? {
        Some(added) => Ok(Ok(Device {
            name: added.name,
            token: added.token,
        })),
        None => Ok(Err(Refused::Taken(name))),
    }
}

impl Pairing {
    /// `POST /api/pair` (the inbox's own token only).
    pub fn begin(&self, hub: &Hub, request: &PairRequest) -> Result<Code, AskError> {
        let Some(base) = &self.base else {
            return Err(not_reachable());
        };
        hub.with_store(|store| begin(store, base, request.name.as_deref(), store::now_ms()))?
    }

    /// `POST /api/pair/claim` (no token): the device's token, taken by the
    /// guard at once.
    pub fn claim(&self, hub: &Hub, code: &str) -> Result<Result<Device, Refused>, AskError> {
        let claimed = hub.with_store(|store| claim(store, code, store::now_ms()))?;
        if claimed.is_ok() {
            hub.reload_tokens(&self.digests)?;
        }
        Ok(claimed)
    }
}

/// `ask_user inbox pair [NAME]`: asks the running inbox for a code.
pub fn request(name: Option<String>) -> Result<Code, AskError> {
    if let Some(name) = &name {
        tokens::check_name(name)
            .map_err(|message| AskError::InvalidField(Detail::at(message, "name")))?;
    }
    super::run(|client| async move { client.post("/api/pair", &PairRequest { name }).await })
}

/// `text` as a QR code in Unicode half blocks (two rows of modules a
/// line). Light modules and the quiet zone are drawn, dark ones left
/// blank: on the usual dark terminal that is a dark-on-light code; on a
/// light terminal it comes out inverted, which most phone scanners read too.
pub fn qr_text(text: &str) -> Option<String> {
    let code = qrcode::QrCode::with_error_correction_level(text, qrcode::EcLevel::L).ok()?;
    let width = code.width();
    let colors = code.to_colors();
    const QUIET: usize = 2;
    let size = width + 2 * QUIET;
    let dark = |x: usize, y: usize| -> bool {
        if x < QUIET || y < QUIET || x >= width + QUIET || y >= width + QUIET {
            return false;
        }
        colors[(y - QUIET) * width + (x - QUIET)] == qrcode::Color::Dark
    };
    let mut out = String::new();
    for y in (0..size).step_by(2) {
        for x in 0..size {
            let top = !dark(x, y);
            let bottom = y + 1 < size && !dark(x, y + 1);
            out.push(match (top, bottom) {
                (true, true) => '█',
                (true, false) => '▀',
                (false, true) => '▄',
                (false, false) => ' ',
            });
        }
        out.push('\n');
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, Box<dyn Store>) {
        let dir = tempfile::tempdir().unwrap();
        let store = store::SqliteStore::open(&dir.path().join("inbox.sqlite3")).unwrap();
        (dir, Box::new(store))
    }

    fn code_of(url: &str) -> &str {
        url.split_once("/pair#").unwrap().1
    }

    #[test]
    fn a_code_is_claimed_once_for_a_person_token_named_as_asked() {
        let (_dir, mut store) = store();
        let code = begin(
            &mut *store,
            "https://inbox.example/",
            Some("ada-phone"),
            1_000,
        )
        .unwrap()
        .unwrap();
        assert_eq!(code.name, "ada-phone");
        assert!(
            code.url.starts_with("https://inbox.example/pair#"),
            "{}",
            code.url
        );
        assert_eq!(code_of(&code.url).len(), 64);
        assert_eq!(code.expires_at, rfc3339(1_000 + 10 * 60 * 1000));
        // The pending row is no token: the guard and `token list` skip it.
        let kept = store.tokens().unwrap();
        assert_eq!(kept.len(), 1);
        assert!(tokens::is_pending(&kept[0].name));
        assert!(tokens::list(&mut *store).unwrap().is_empty());
        let device = claim(&mut *store, code_of(&code.url), 2_000)
            .unwrap()
            .unwrap();
        assert_eq!(device.name, "ada-phone");
        assert_eq!(device.token.len(), 64);
        let listed = tokens::list(&mut *store).unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(
            (listed[0].name.as_str(), listed[0].role),
            ("ada-phone", TokenRole::Person)
        );
        let kept = store.tokens().unwrap();
        assert_eq!(kept[0].digest, digest(&device.token).to_vec());
        // Once.
        assert_eq!(
            claim(&mut *store, code_of(&code.url), 2_000)
                .unwrap()
                .unwrap_err(),
            Refused::Used
        );
        // A guess, or the code as a token: nothing.
        assert_eq!(
            claim(&mut *store, &"0".repeat(64), 2_000)
                .unwrap()
                .unwrap_err(),
            Refused::Used
        );
    }

    #[test]
    fn a_code_past_its_minutes_is_expired_and_gone() {
        let (_dir, mut store) = store();
        let code = begin(&mut *store, "https://h", None, 0).unwrap().unwrap();
        let late = CODE_MS + 1;
        assert_eq!(
            claim(&mut *store, code_of(&code.url), late)
                .unwrap()
                .unwrap_err(),
            Refused::Expired
        );
        assert!(store.tokens().unwrap().is_empty());
        assert_eq!(
            claim(&mut *store, code_of(&code.url), late)
                .unwrap()
                .unwrap_err(),
            Refused::Used
        );
        // At its last millisecond it is still good.
        let code = begin(&mut *store, "https://h", None, 0).unwrap().unwrap();
        assert!(
            claim(&mut *store, code_of(&code.url), CODE_MS)
                .unwrap()
                .is_ok()
        );
    }

    #[test]
    fn default_names_are_the_first_free_phone_n_and_a_kept_name_is_refused() {
        let (_dir, mut store) = store();
        let first = begin(&mut *store, "https://h", None, 0).unwrap().unwrap();
        assert_eq!(first.name, "phone-1");
        let second = begin(&mut *store, "https://h", None, 0).unwrap().unwrap();
        assert_eq!(second.name, "phone-2");
        claim(&mut *store, code_of(&first.url), 1).unwrap().unwrap();
        let err = begin(&mut *store, "https://h", Some("phone-1"), 0)
            .unwrap()
            .unwrap_err();
        assert_eq!((err.code(), err.path()), ("INVALID_FIELD", Some("name")));
        assert!(
            err.message().contains("token remove phone-1"),
            "{}",
            err.message()
        );
        let err = begin(&mut *store, "https://h", Some("phone-2"), 0)
            .unwrap()
            .unwrap_err();
        assert!(
            err.message().contains("waits for its phone"),
            "{}",
            err.message()
        );
        let err = begin(&mut *store, "https://h", Some("a b"), 0)
            .unwrap()
            .unwrap_err();
        assert_eq!(err.code(), "INVALID_FIELD");
        // An unclaimed code past its time frees its name at the next pairing.
        let again = begin(&mut *store, "https://h", Some("phone-2"), CODE_MS + 1)
            .unwrap()
            .unwrap();
        assert_eq!(again.name, "phone-2");
    }

    #[test]
    fn a_name_taken_meanwhile_refuses_the_claim() {
        let (_dir, mut store) = store();
        let code = begin(&mut *store, "https://h", Some("tab"), 0)
            .unwrap()
            .unwrap();
        tokens::add(&mut *store, TokenRole::Asker, "tab", &[])
            .unwrap()
            .unwrap();
        assert_eq!(
            claim(&mut *store, code_of(&code.url), 1)
                .unwrap()
                .unwrap_err(),
            Refused::Taken("tab".into())
        );
    }

    #[test]
    fn a_loopback_only_inbox_is_not_reachable_and_a_public_or_tls_one_is() {
        use super::super::listen::{Exposure, parse_listen, parse_public_url};
        let tls = Some(("c.pem".into(), "k.pem".into()));
        assert_eq!(reachable_base(&Exposure::loopback(27587), 27587), None);
        let lan = Exposure::new(
            parse_listen("192.0.2.7:8443").unwrap(),
            tls.clone(),
            false,
            None,
        )
        .unwrap();
        assert_eq!(
            reachable_base(&lan, 8443).as_deref(),
            Some("https://192.0.2.7:8443")
        );
        let public = parse_public_url("https://inbox.example.com").unwrap();
        let proxied = Exposure::new(
            parse_listen("127.0.0.1:9000").unwrap(),
            None,
            true,
            Some(public),
        )
        .unwrap();
        assert_eq!(
            reachable_base(&proxied, 9000).as_deref(),
            Some("https://inbox.example.com")
        );
        let err = not_reachable();
        assert_eq!(err.code(), "NOT_REACHABLE");
        for named in [
            "--listen",
            "--public-url",
            "--tls-cert",
            "docs/inbox-phone.md, \"Reach the inbox from a phone\"",
        ] {
            assert!(err.message().contains(named), "{}", err.message());
        }
    }

    #[test]
    fn the_qr_code_is_half_blocks_two_module_rows_a_line() {
        let text =
            qr_text("https://inbox.example.com/pair#00112233445566778899aabbccddeeff").unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let width = lines[0].chars().count();
        assert!(lines.iter().all(|l| l.chars().count() == width));
        assert_eq!(lines.len(), width.div_ceil(2));
        assert!(
            text.chars()
                .all(|c| matches!(c, '█' | '▀' | '▄' | ' ' | '\n'))
        );
        // The quiet zone is light all round: the first line is full blocks.
        assert!(lines[0].chars().all(|c| c == '█'), "{}", lines[0]);
    }
}
