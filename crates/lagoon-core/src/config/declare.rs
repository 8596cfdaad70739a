//! `section!`: one declaration per key, from which a section's struct, its `Default`, its
//! schema (range checks, `lagoon config --keys`, docs/CONFIG.md) all come.

/// Declares a configuration section: a serde struct that refuses unknown keys (and a section
/// written as anything but a table), its `Default` and its [`Section`] schema, from one
/// entry per key: doc comment (cite where the default comes from), name, type, default, and
/// for a number its unit and range.
///
/// ```ignore
/// section! {
///     /// Flash array geometry and timing.
///     pub struct FlashConfig = "flash" {
///         /// Array read time tR (Venice Table 1: 3 us).
///         read_ns: f64 = 3_000.0, "ns", TIME_NS;
///         /// The multi-plane rule.
///         multiplane: Multiplane = Multiplane::SameOffset;
///     }
/// }
/// ```
///
/// Words, flags, text, lists and sub-tables have no unit or range: the type says what they
/// take ([`KeyType`]). `group::key = default;` takes a key whose doc, type, unit and range a
/// group macro declares for several sections (`router::vcs = 2;`, see `network.rs`); doc
/// lines above it are added to the group's.
///
/// [`Section`]: super::schema::Section
/// [`KeyType`]: super::schema::KeyType
macro_rules! section {
    (
        $(#[doc = $sdoc:literal])*
        pub struct $name:ident = $table:literal { $($body:tt)* }
    ) => {
        $crate::config::declare::section!(@munch [$(#[doc = $sdoc])* $name $table] [] $($body)*);
    };
    (@munch $head:tt [$($acc:tt)*]) => {
        $crate::config::declare::section!(@emit $head $($acc)*);
    };
    // A key declared by a group macro: it hands the declaration back through `@shared`.
    (@munch $head:tt [$($acc:tt)*]
        $(#[doc = $doc:literal])* $group:ident :: $key:ident = $default:expr; $($rest:tt)*
    ) => {
        $group!($key [$(#[doc = $doc])*] $default; $head [$($acc)*] $($rest)*);
    };
    (@munch $head:tt [$($acc:tt)*]
        $(#[doc = $doc:literal])* $(#[serde($($serde:tt)*)])*
        $field:ident : $ty:ty = $default:expr $(, $unit:literal, $range:expr)?; $($rest:tt)*
    ) => {
        $crate::config::declare::section!(@munch $head [$($acc)* {
            $(#[doc = $doc])* $(#[serde($($serde)*)])* $field: $ty = $default $(, $unit, $range)?
        }] $($rest)*);
    };
    (@shared [$($decl:tt)*] $head:tt [$($acc:tt)*] $($rest:tt)*) => {
        $crate::config::declare::section!(@munch $head [$($acc)*] $($decl)* $($rest)*);
    };
    (@emit [$(#[doc = $sdoc:literal])* $name:ident $table:literal] $({
        $(#[doc = $doc:literal])* $(#[serde($($serde:tt)*)])*
        $field:ident : $ty:ty = $default:expr $(, $unit:literal, $range:expr)?
    })*) => {
        $(#[doc = $sdoc])*
        #[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq)]
        #[serde(deny_unknown_fields, default)]
        pub struct $name {
            $(
                $(#[doc = $doc])*
                $(#[serde($($serde)*)])*
                #[serde(deserialize_with = "crate::config::schema::KeyType::de")]
                pub $field: $ty,
            )*
        }

        impl Default for $name {
            fn default() -> Self {
                Self { $($field: $default,)* }
            }
        }

        impl $crate::config::schema::Section for $name {
            const NAME: &'static str = $table;
            const DOC: &'static str = concat!($($sdoc, "\n",)* "");
            const PARAMS: &'static [$crate::config::schema::Param<Self>] = &[$(
                $crate::config::schema::Param {
                    name: stringify!($field),
                    doc: concat!($($doc, "\n",)* ""),
                    unit: concat!($($unit,)? ""),
                    range: $crate::config::schema::checked(
                        <$ty as $crate::config::schema::KeyType>::KIND,
                        $crate::config::declare::section!(@range $($range)?),
                    ),
                    kind: <$ty as $crate::config::schema::KeyType>::KIND,
                    words: <$ty as $crate::config::schema::KeyType>::words,
                    get: |s| $crate::config::schema::KeyType::field(&s.$field),
                },
            )*];
        }

        impl $crate::config::schema::KeyType for $name {
            const KIND: $crate::config::schema::Kind = $crate::config::schema::Kind::Table;
            fn field(&self) -> $crate::config::schema::Field<'_> {
                $crate::config::schema::Field::Table(self)
            }
            fn de<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::config::schema::table_only(d, $table)
            }
        }
    };
    (@range) => { None };
    (@range $range:expr) => { Some($range) };
}
pub(crate) use section;
