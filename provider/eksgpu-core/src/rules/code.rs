//! Rule and decision codes as a type: a code that is not in this list does
//! not compile, so a typo cannot slip into a diagnostic or the docs.

use std::fmt;

macro_rules! codes {
    ($($code:ident),* $(,)?) => {
        /// A stable rule (`EKSGPU0xx`, `EKSGPU1xx`, `EKSGPU240` on) or decision (`EKSGPU201`-`EKSGPU213`) code.
        #[allow(clippy::upper_case_acronyms)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code {
            $($code),*
        }

        impl Code {
            pub const ALL: &'static [Code] = &[$(Code::$code),*];

            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Code::$code => stringify!($code)),*
                }
            }
        }
    };
}

codes!(
    EKSGPU001, EKSGPU002, EKSGPU003, EKSGPU004, EKSGPU005, EKSGPU006, EKSGPU007, EKSGPU008, EKSGPU009, EKSGPU010,
    EKSGPU011, EKSGPU012, EKSGPU013, EKSGPU014, EKSGPU015, EKSGPU016, EKSGPU017, EKSGPU018, EKSGPU101, EKSGPU102,
    EKSGPU103, EKSGPU104, EKSGPU105, EKSGPU106, EKSGPU107, EKSGPU108, EKSGPU109, EKSGPU110, EKSGPU111, EKSGPU112,
    EKSGPU113, EKSGPU114, EKSGPU115, EKSGPU116, EKSGPU117, EKSGPU118, EKSGPU119, EKSGPU120, EKSGPU121, EKSGPU122,
    EKSGPU123, EKSGPU124, EKSGPU125, EKSGPU126, EKSGPU127, EKSGPU128, EKSGPU129, EKSGPU130, EKSGPU131, EKSGPU132,
    EKSGPU133, EKSGPU134, EKSGPU135, EKSGPU136, EKSGPU137, EKSGPU138, EKSGPU140, EKSGPU141, EKSGPU142, EKSGPU143,
    EKSGPU144, EKSGPU145, EKSGPU146, EKSGPU150, EKSGPU151, EKSGPU152, EKSGPU153, EKSGPU154, EKSGPU155, EKSGPU156,
    EKSGPU157, EKSGPU158, EKSGPU159, EKSGPU160, EKSGPU161, EKSGPU162, EKSGPU163, EKSGPU164, EKSGPU165, EKSGPU166,
    EKSGPU167, EKSGPU168, EKSGPU169, EKSGPU170, EKSGPU171, EKSGPU172, EKSGPU173, EKSGPU174, EKSGPU175, EKSGPU176,
    EKSGPU177, EKSGPU178, EKSGPU179, EKSGPU180, EKSGPU181, EKSGPU182, EKSGPU183, EKSGPU184, EKSGPU185, EKSGPU186,
    EKSGPU187, EKSGPU188, EKSGPU189, EKSGPU190, EKSGPU191, EKSGPU192, EKSGPU193, EKSGPU194, EKSGPU195, EKSGPU196,
    EKSGPU197, EKSGPU201, EKSGPU202, EKSGPU203, EKSGPU204, EKSGPU205, EKSGPU206, EKSGPU207, EKSGPU208, EKSGPU209,
    EKSGPU210, EKSGPU211, EKSGPU212, EKSGPU213, EKSGPU240, EKSGPU241, EKSGPU242, EKSGPU243, EKSGPU244, EKSGPU245,
    EKSGPU246, EKSGPU247, EKSGPU300, EKSGPU301, EKSGPU307, EKSGPU312, EKSGPU313, EKSGPU321, EKSGPU322, EKSGPU323,
    EKSGPU324, EKSGPU325, EKSGPU361, EKSGPU362, EKSGPU363, EKSGPU364, EKSGPU365,
);

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<Code> for &str {
    fn eq(&self, other: &Code) -> bool {
        *self == other.as_str()
    }
}
