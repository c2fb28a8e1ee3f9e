//! A small XML well-formedness checker, so the tests can read back every figure.
//!
//! It checks what a browser would choke on in a hand-written SVG: tags balanced and
//! properly nested, one root element, attribute values quoted and unique per element,
//! and `<` and `&` in text and attributes written as entities. It returns the elements
//! found, so a test can look for the ones a figure must have.

/// One element: its name, its attributes, and its direct text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    /// The tag name.
    pub name: String,
    /// Attributes in the order written, values unescaped.
    pub attributes: Vec<(String, String)>,
    /// The element's own text (not its children's), unescaped.
    pub text: String,
}

impl Element {
    /// The attribute `name`, if present.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// Checks that `text` is well-formed XML; on success, every element in document order.
pub fn check_xml(text: &str) -> Result<Vec<Element>, String> {
    let mut elements: Vec<Element> = Vec::new();
    // Open elements: name and index in `elements`.
    let mut open: Vec<(String, usize)> = Vec::new();
    let mut roots = 0;
    let mut rest = text;
    let mut offset = 0;
    let fail = |at: usize, what: &str| Err(format!("XML: {what} at byte {at}"));
    while !rest.is_empty() {
        let Some(lt) = rest.find('<') else {
            let text = unescape(rest).map_err(|e| format!("XML: {e} at byte {offset}"))?;
            if !text.trim().is_empty() {
                return fail(offset, "text after the root element");
            }
            break;
        };
        let chunk = unescape(&rest[..lt]).map_err(|e| format!("XML: {e} at byte {offset}"))?;
        match open.last() {
            Some((_, index)) => elements[*index].text.push_str(&chunk),
            None if !chunk.trim().is_empty() => return fail(offset, "text outside the root"),
            None => {}
        }
        let at = offset + lt;
        rest = &rest[lt..];
        offset = at;
        let skip = if let Some(body) = rest.strip_prefix("<?") {
            match body.find("?>") {
                Some(end) => end + 4,
                None => return fail(at, "unterminated declaration"),
            }
        } else if let Some(body) = rest.strip_prefix("<!--") {
            match body.find("-->") {
                Some(end) => end + 7,
                None => return fail(at, "unterminated comment"),
            }
        } else if let Some(body) = rest.strip_prefix("</") {
            let Some(end) = body.find('>') else {
                return fail(at, "unterminated end tag");
            };
            let name = body[..end].trim();
            match open.pop() {
                Some((opened, _)) if opened == name => {}
                Some((opened, _)) => {
                    return fail(at, &format!("`</{name}>` closes `<{opened}>`"));
                }
                None => return fail(at, &format!("`</{name}>` closes nothing")),
            }
            end + 3
        } else {
            let (element, len, empty) =
                start_tag(&rest[1..]).map_err(|e| format!("XML: {e} at byte {at}"))?;
            if open.is_empty() {
                roots += 1;
                if roots > 1 {
                    return fail(at, "a second root element");
                }
            }
            elements.push(element);
            if !empty {
                let index = elements.len() - 1;
                open.push((elements[index].name.clone(), index));
            }
            len + 1
        };
        rest = &rest[skip..];
        offset += skip;
    }
    if let Some((name, _)) = open.last() {
        return Err(format!("XML: `<{name}>` is never closed"));
    }
    if roots == 0 {
        return Err("XML: no root element".to_string());
    }
    Ok(elements)
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.')
}

/// Reads a start tag after its `<`: the element, the tag's length up to and including
/// `>`, and whether it was empty (`/>`).
fn start_tag(text: &str) -> Result<(Element, usize, bool), String> {
    let name_len = text.find(|c: char| !is_name_char(c)).unwrap_or(text.len());
    let name = &text[..name_len];
    if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        return Err("bad tag name".to_string());
    }
    let mut element = Element {
        name: name.to_string(),
        attributes: Vec::new(),
        text: String::new(),
    };
    let mut at = name_len;
    loop {
        let before = at;
        at += text[at..].len() - text[at..].trim_start().len();
        let rest = &text[at..];
        if let Some(after) = rest.strip_prefix("/>") {
            let _ = after;
            return Ok((element, at + 2, true));
        }
        if rest.starts_with('>') {
            return Ok((element, at + 1, false));
        }
        if rest.is_empty() {
            return Err(format!("unterminated tag `<{name}`"));
        }
        if at == before {
            return Err(format!(
                "attributes of `<{name}>` must be separated by space"
            ));
        }
        let key_len = rest.find(|c: char| !is_name_char(c)).unwrap_or(rest.len());
        let key = &rest[..key_len];
        if key.is_empty() {
            return Err(format!("bad attribute name in `<{name}>`"));
        }
        let after_key = rest[key_len..].trim_start();
        let Some(after_eq) = after_key.strip_prefix('=') else {
            return Err(format!("attribute `{key}` of `<{name}>` has no value"));
        };
        let after_eq = after_eq.trim_start();
        let quote = after_eq
            .chars()
            .next()
            .filter(|c| *c == '"' || *c == '\'')
            .ok_or_else(|| format!("attribute `{key}` of `<{name}>` is not quoted"))?;
        let value_text = &after_eq[1..];
        let end = value_text
            .find(quote)
            .ok_or_else(|| format!("attribute `{key}` of `<{name}>` is not closed"))?;
        let raw = &value_text[..end];
        if raw.contains('<') {
            return Err(format!("`<` in attribute `{key}` of `<{name}>`"));
        }
        if element.attribute(key).is_some() {
            return Err(format!("attribute `{key}` twice in `<{name}>`"));
        }
        element.attributes.push((key.to_string(), unescape(raw)?));
        let consumed = rest.len() - value_text[end + 1..].len();
        at += consumed;
    }
}

/// Replaces the entities in `text`; a bare `&` or `<` is an error.
fn unescape(text: &str) -> Result<String, String> {
    if text.contains('<') {
        return Err("`<` in text".to_string());
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let end = after
            .find(';')
            .filter(|end| *end <= 8)
            .ok_or_else(|| "a bare `&` (write `&amp;`)".to_string())?;
        let entity = &after[..end];
        let c = match entity {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            _ => {
                let code = if let Some(hex) = entity.strip_prefix("#x") {
                    u32::from_str_radix(hex, 16).ok()
                } else if let Some(dec) = entity.strip_prefix('#') {
                    dec.parse().ok()
                } else {
                    None
                };
                code.and_then(char::from_u32)
                    .ok_or_else(|| format!("unknown entity `&{entity};`"))?
            }
        };
        out.push(c);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_a_small_document() {
        let elements = check_xml(
            "<?xml version=\"1.0\"?>\n<svg a=\"1\" b='x &amp; y'><!-- c --><g><text>a &lt; b</text></g><rect/></svg>\n",
        )
        .expect("well-formed");
        let names: Vec<&str> = elements.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["svg", "g", "text", "rect"]);
        assert_eq!(elements[0].attribute("b"), Some("x & y"));
        assert_eq!(elements[2].text, "a < b");
    }

    #[test]
    fn refuses_what_a_browser_would() {
        for bad in [
            "<svg><g></svg>",
            "<svg a=1></svg>",
            "<svg>a & b</svg>",
            "<svg a=\"1\" a=\"2\"/>",
            "<svg></svg><svg></svg>",
            "<svg a=\"1\"b=\"2\"/>",
            "<svg>",
            "text",
        ] {
            assert!(check_xml(bad).is_err(), "{bad} should be refused");
        }
    }
}
