//! The bytes of recorded JSON values as Go's `json.Marshal` writes them, for byte-exact
//! comparison: the probe writes its output through a `json.Encoder` with indentation and
//! `SetEscapeHTML(false)`, so a recorded value is compacted and its `<`, `>`, `&` escaped
//! back (`\u003c`, ...). Numbers and key order stay as Go printed them.

/// A scanner over JSON text that keeps spans instead of building values.
struct Scanner<'t> {
    text: &'t str,
    pos: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn expect(&mut self, b: u8) -> Result<(), String> {
        self.skip_ws();
        if self.peek() == Some(b) {
            self.pos += 1;
            Ok(())
        } else {
            Err(format!("byte {}: want {:?}", self.pos, b as char))
        }
    }

    /// Skips a string (the scanner is on its opening quote); returns its span.
    fn string(&mut self) -> Result<(usize, usize), String> {
        let start = self.pos;
        self.pos += 1;
        loop {
            match self.peek() {
                None => return Err(format!("byte {start}: unterminated string")),
                Some(b'\\') => self.pos += 2,
                Some(b'"') => {
                    self.pos += 1;
                    return Ok((start, self.pos));
                }
                Some(_) => self.pos += 1,
            }
        }
    }

    /// Skips one value; returns its span.
    fn value(&mut self) -> Result<(usize, usize), String> {
        self.skip_ws();
        let start = self.pos;
        match self.peek() {
            Some(b'"') => self.string(),
            Some(b'{' | b'[') => {
                let mut depth = 0usize;
                loop {
                    match self.peek() {
                        None => return Err(format!("byte {start}: unterminated value")),
                        Some(b'"') => {
                            self.string()?;
                        }
                        Some(b'{' | b'[') => {
                            depth += 1;
                            self.pos += 1;
                        }
                        Some(b'}' | b']') => {
                            depth -= 1;
                            self.pos += 1;
                            if depth == 0 {
                                return Ok((start, self.pos));
                            }
                        }
                        Some(_) => self.pos += 1,
                    }
                }
            }
            _ => {
                while self.peek().is_some_and(|b| {
                    !matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                }) {
                    self.pos += 1;
                }
                if self.pos == start {
                    Err(format!("byte {start}: want a value"))
                } else {
                    Ok((start, self.pos))
                }
            }
        }
    }
}

/// For each element of the top-level array of `text`, the value of its member `key` (when the
/// element is an object that has it) in `json.Marshal`'s bytes.
pub fn member_texts(text: &str, key: &str) -> Result<Vec<Option<String>>, String> {
    let mut s = Scanner { text, pos: 0 };
    s.expect(b'[')?;
    let mut out = Vec::new();
    s.skip_ws();
    if s.peek() == Some(b']') {
        return Ok(out);
    }
    loop {
        s.skip_ws();
        let mut found = None;
        if s.peek() == Some(b'{') {
            s.pos += 1;
            s.skip_ws();
            if s.peek() == Some(b'}') {
                s.pos += 1;
            } else {
                loop {
                    s.skip_ws();
                    let (ks, ke) = s.string()?;
                    let name: String =
                        serde_json::from_str(&text[ks..ke]).map_err(|e| e.to_string())?;
                    s.expect(b':')?;
                    let (vs, ve) = s.value()?;
                    if name == key {
                        found = Some(marshal_bytes(&text[vs..ve]));
                    }
                    s.skip_ws();
                    match s.peek() {
                        Some(b',') => s.pos += 1,
                        Some(b'}') => {
                            s.pos += 1;
                            break;
                        }
                        _ => return Err(format!("byte {}: want ',' or '}}'", s.pos)),
                    }
                }
            }
        } else {
            s.value()?;
        }
        out.push(found);
        s.skip_ws();
        match s.peek() {
            Some(b',') => s.pos += 1,
            Some(b']') => return Ok(out),
            _ => return Err(format!("byte {}: want ',' or ']'", s.pos)),
        }
    }
}

/// Compacts encoder output and escapes HTML characters in its strings, as `json.Marshal`.
fn marshal_bytes(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in raw.chars() {
        if in_string {
            match c {
                _ if escaped => {
                    escaped = false;
                    out.push(c);
                }
                '\\' => {
                    escaped = true;
                    out.push(c);
                }
                '"' => {
                    in_string = false;
                    out.push(c);
                }
                '<' => out.push_str("\\u003c"),
                '>' => out.push_str("\\u003e"),
                '&' => out.push_str("\\u0026"),
                _ => out.push(c),
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_ascii_whitespace() {
            out.push(c);
        }
    }
    out
}
