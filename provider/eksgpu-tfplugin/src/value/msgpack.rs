//! MessagePack `DynamicValue` codec, driven by the schema's type
//! (Terraform's `docs/plugin-protocol/object-wire-format.md`).
//!
//! The decoder is hand-written over the byte slice so that hostile input can
//! cost neither a panic nor a large allocation: lengths are checked against
//! the bytes actually left before anything is reserved, and nesting is bounded.

use std::borrow::Cow;
use std::collections::BTreeMap;

use rmp::Marker;

use super::{DecodeError, EncodeError, Number, Value};
use crate::diag::{AttributePath, Step};
use crate::types::Type;

/// Deeper than any schema this provider declares; bounds recursion on bad input.
const MAX_DEPTH: usize = 64;

/// A step of the path to the value being read or written. Attribute names
/// borrow from the type: the path is needed only for an error, and copying
/// every name on the way was a large part of the codec's cost.
#[derive(Clone)]
enum Crumb<'t> {
    Attribute(&'t str),
    Key(Cow<'t, str>),
    Index(usize),
}

fn attribute_path(crumbs: &[Crumb<'_>]) -> AttributePath {
    AttributePath::from_steps(
        crumbs
            .iter()
            .map(|c| match c {
                Crumb::Attribute(a) => Step::Attribute((*a).to_owned()),
                Crumb::Key(k) => Step::Key(k.clone().into_owned()),
                Crumb::Index(i) => Step::Index(i64::try_from(*i).unwrap_or(i64::MAX)),
            })
            .collect(),
    )
}

/// Decodes msgpack bytes as a value of type `ty`. Any extension type is an
/// unknown (Terraform < 1.6 sends ext 0, newer ones may send refined ext 12).
pub fn decode_msgpack(bytes: &[u8], ty: &Type) -> Result<Value, DecodeError> {
    let mut reader = Reader {
        buf: bytes,
        path: Vec::new(),
    };
    let value = reader.value(ty)?;
    if !reader.buf.is_empty() {
        return Err(reader.error(format!("{} trailing bytes after the value", reader.buf.len())));
    }
    Ok(value)
}

struct Reader<'a, 't> {
    buf: &'a [u8],
    path: Vec<Crumb<'t>>,
}

impl<'a, 't> Reader<'a, 't> {
    fn error(&self, reason: impl Into<String>) -> DecodeError {
        DecodeError {
            path: attribute_path(&self.path),
            reason: reason.into(),
        }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if self.buf.len() < n {
            return Err(self.error("unexpected end of msgpack data"));
        }
        let (head, tail) = self.buf.split_at(n);
        self.buf = tail;
        Ok(head)
    }

    fn uint(&mut self, n: usize) -> Result<u64, DecodeError> {
        Ok(self.take(n)?.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b)))
    }

    fn len(&mut self, n: usize) -> Result<usize, DecodeError> {
        let len = self.uint(n)?;
        usize::try_from(len).map_err(|_| self.error("length does not fit in memory"))
    }

    fn value(&mut self, ty: &'t Type) -> Result<Value, DecodeError> {
        if self.path.len() > MAX_DEPTH {
            return Err(self.error("value nested too deeply"));
        }
        let byte = self.take(1)?[0];
        let marker = Marker::from_u8(byte);
        match marker {
            Marker::Null => return Ok(Value::Null),
            Marker::FixExt1 => return self.take(2).map(|_| Value::Unknown),
            Marker::FixExt2 => return self.take(3).map(|_| Value::Unknown),
            Marker::FixExt4 => return self.take(5).map(|_| Value::Unknown),
            Marker::FixExt8 => return self.take(9).map(|_| Value::Unknown),
            Marker::FixExt16 => return self.take(17).map(|_| Value::Unknown),
            Marker::Ext8 | Marker::Ext16 | Marker::Ext32 => {
                let n = match marker {
                    Marker::Ext8 => 1,
                    Marker::Ext16 => 2,
                    _ => 4,
                };
                let len = self.len(n)?;
                return self.take(len.saturating_add(1)).map(|_| Value::Unknown);
            }
            _ => {}
        }
        match ty {
            Type::String => self.string(marker).map(Value::String),
            Type::Number => self.number(marker).map(Value::Number),
            Type::Bool => match marker {
                Marker::True => Ok(Value::Bool(true)),
                Marker::False => Ok(Value::Bool(false)),
                _ => Err(self.mismatch(ty, marker)),
            },
            Type::List(elem) => self.sequence(marker, ty, |_| elem).map(Value::List),
            Type::Set(elem) => self.sequence(marker, ty, |_| elem).map(Value::Set),
            Type::Tuple(elems) => {
                let values = self.sequence(marker, ty, |i| elems.get(i).unwrap_or(&Type::String))?;
                if values.len() != elems.len() {
                    return Err(self.error(format!(
                        "tuple of {} elements expected, got {}",
                        elems.len(),
                        values.len()
                    )));
                }
                Ok(Value::Tuple(values))
            }
            Type::Map(elem) => self
                .map(marker, ty, |k| Some((Crumb::Key(Cow::Owned(k.to_owned())), &**elem)))
                .map(Value::Map),
            Type::Object(attrs) => {
                let mut m = self.map(marker, ty, |k| {
                    attrs
                        .get_key_value(k)
                        .map(|(name, t)| (Crumb::Attribute(name.as_str()), t))
                })?;
                // Terraform always sends every attribute; fill gaps leniently
                // (a name is copied only for an attribute that is missing).
                if m.len() < attrs.len() {
                    for name in attrs.keys() {
                        if !m.contains_key(name) {
                            m.insert(name.clone(), Value::Null);
                        }
                    }
                }
                Ok(Value::Object(m))
            }
        }
    }

    fn mismatch(&self, ty: &Type, marker: Marker) -> DecodeError {
        self.error(format!("expected {}, got msgpack {marker:?}", ty.friendly_name()))
    }

    fn string(&mut self, marker: Marker) -> Result<String, DecodeError> {
        let len = match marker {
            Marker::FixStr(n) => usize::from(n),
            Marker::Str8 => self.len(1)?,
            Marker::Str16 => self.len(2)?,
            Marker::Str32 => self.len(4)?,
            _ => return Err(self.mismatch(&Type::String, marker)),
        };
        let bytes = self.take(len)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| self.error("string is not valid UTF-8"))
    }

    fn number(&mut self, marker: Marker) -> Result<Number, DecodeError> {
        #[allow(clippy::cast_possible_wrap)]
        let n = match marker {
            Marker::FixPos(n) => Number::Int(i64::from(n)),
            Marker::FixNeg(n) => Number::Int(i64::from(n)),
            Marker::U8 => Number::from_u64(self.uint(1)?),
            Marker::U16 => Number::from_u64(self.uint(2)?),
            Marker::U32 => Number::from_u64(self.uint(4)?),
            Marker::U64 => Number::from_u64(self.uint(8)?),
            Marker::I8 => Number::Int(i64::from(self.uint(1)? as u8 as i8)),
            Marker::I16 => Number::Int(i64::from(self.uint(2)? as u16 as i16)),
            Marker::I32 => Number::Int(i64::from(self.uint(4)? as u32 as i32)),
            Marker::I64 => Number::Int(self.uint(8)? as i64),
            #[allow(clippy::cast_possible_truncation)]
            Marker::F32 => Number::from_f64(f64::from(f32::from_bits(self.uint(4)? as u32))),
            Marker::F64 => {
                let f = f64::from_bits(self.uint(8)?);
                if f.is_nan() {
                    return Err(self.error("NaN is not a Terraform number"));
                }
                if f.is_infinite() {
                    Number::Float(f)
                } else {
                    Number::from_f64(f)
                }
            }
            Marker::FixStr(_) | Marker::Str8 | Marker::Str16 | Marker::Str32 => {
                let s = self.string(marker)?;
                // go-cty sends a number as text only when float64 cannot hold it
                // exactly (e.g. 1e30): keep the text, so it goes back unchanged.
                match Number::parse(&s).ok_or_else(|| self.error(format!("{s:?} is not a decimal number")))? {
                    Number::Int(i) => Number::Int(i),
                    _ => Number::Decimal(s),
                }
            }
            _ => return Err(self.mismatch(&Type::Number, marker)),
        };
        Ok(n)
    }

    fn sequence(
        &mut self,
        marker: Marker,
        ty: &Type,
        elem: impl Fn(usize) -> &'t Type,
    ) -> Result<Vec<Value>, DecodeError> {
        let len = match marker {
            Marker::FixArray(n) => usize::from(n),
            Marker::Array16 => self.len(2)?,
            Marker::Array32 => self.len(4)?,
            _ => return Err(self.mismatch(ty, marker)),
        };
        // Every element takes at least one byte: never reserve more than is left.
        let mut out = Vec::with_capacity(len.min(self.buf.len()));
        for i in 0..len {
            self.path.push(Crumb::Index(i));
            let v = self.value(elem(i))?;
            self.path.pop();
            out.push(v);
        }
        Ok(out)
    }

    fn map(
        &mut self,
        marker: Marker,
        ty: &Type,
        elem: impl Fn(&str) -> Option<(Crumb<'t>, &'t Type)>,
    ) -> Result<BTreeMap<String, Value>, DecodeError> {
        let len = match marker {
            Marker::FixMap(n) => usize::from(n),
            Marker::Map16 => self.len(2)?,
            Marker::Map32 => self.len(4)?,
            _ => return Err(self.mismatch(ty, marker)),
        };
        let mut out = BTreeMap::new();
        for _ in 0..len {
            let key_marker = Marker::from_u8(self.take(1)?[0]);
            let key = self.string(key_marker)?;
            let Some((step, elem_ty)) = elem(&key) else {
                return Err(self.error(format!("unsupported attribute {key:?}")));
            };
            self.path.push(step);
            let v = self.value(elem_ty)?;
            self.path.pop();
            out.insert(key, v);
        }
        Ok(out)
    }
}

/// Written for an absent attribute: a static, as the path borrows from what is written.
static NULL: Value = Value::Null;

/// Encodes `value` as msgpack of type `ty`: objects get exactly the type's
/// attributes (absent ones as nil), as go-cty's decoder insists.
pub fn encode_msgpack(value: &Value, ty: &Type) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::with_capacity(256);
    let mut path = Vec::new();
    write(&mut out, value, ty, &mut path)?;
    Ok(out)
}

fn write<'t>(out: &mut Vec<u8>, value: &'t Value, ty: &'t Type, path: &mut Vec<Crumb<'t>>) -> Result<(), EncodeError> {
    let mismatch = |path: &Vec<Crumb<'t>>| EncodeError {
        path: attribute_path(path),
        expected: ty.friendly_name(),
        found: value.kind(),
    };
    // Writes into a Vec cannot fail; the io::Result is an artefact of rmp's API.
    let len32 = |n: usize, path: &Vec<Crumb<'t>>| u32::try_from(n).map_err(|_| mismatch(path));
    match (value, ty) {
        (Value::Null, _) => out.push(0xc0),
        // fixext1 type 0, payload 0: the plain unknown every Terraform version reads.
        (Value::Unknown, _) => out.extend_from_slice(&[0xd4, 0x00, 0x00]),
        (Value::Bool(b), Type::Bool) => out.push(if *b { 0xc3 } else { 0xc2 }),
        (Value::String(s), Type::String) => {
            let _ = rmp::encode::write_str(out, s);
        }
        (Value::Number(n), Type::Number) => match n {
            Number::Int(i) => {
                let _ = rmp::encode::write_sint(out, *i);
            }
            Number::Float(f) => {
                let _ = rmp::encode::write_f64(out, *f);
            }
            Number::Decimal(s) => {
                let _ = rmp::encode::write_str(out, s);
            }
        },
        (Value::List(items), Type::List(elem)) | (Value::Set(items), Type::Set(elem)) => {
            let _ = rmp::encode::write_array_len(out, len32(items.len(), path)?);
            for (i, item) in items.iter().enumerate() {
                path.push(Crumb::Index(i));
                write(out, item, elem, path)?;
                path.pop();
            }
        }
        (Value::Tuple(items), Type::Tuple(elems)) if items.len() == elems.len() => {
            let _ = rmp::encode::write_array_len(out, len32(items.len(), path)?);
            for (i, (item, elem)) in items.iter().zip(elems).enumerate() {
                path.push(Crumb::Index(i));
                write(out, item, elem, path)?;
                path.pop();
            }
        }
        (Value::Map(m), Type::Map(elem)) => {
            let _ = rmp::encode::write_map_len(out, len32(m.len(), path)?);
            for (k, v) in m {
                let _ = rmp::encode::write_str(out, k);
                path.push(Crumb::Key(Cow::Borrowed(k)));
                write(out, v, elem, path)?;
                path.pop();
            }
        }
        (Value::Object(m), Type::Object(attrs)) => {
            if let Some(extra) = m.keys().find(|k| !attrs.contains_key(*k)) {
                path.push(Crumb::Attribute(extra));
                let err = EncodeError {
                    path: attribute_path(path),
                    expected: "no such attribute".into(),
                    found: m.get(extra).map_or("null", Value::kind),
                };
                return Err(err);
            }
            let _ = rmp::encode::write_map_len(out, len32(attrs.len(), path)?);
            for (name, attr_ty) in attrs {
                let _ = rmp::encode::write_str(out, name);
                path.push(Crumb::Attribute(name));
                write(out, m.get(name).unwrap_or(&NULL), attr_ty, path)?;
                path.pop();
            }
        }
        _ => return Err(mismatch(path)),
    }
    Ok(())
}

#[cfg(test)]
mod tests;
