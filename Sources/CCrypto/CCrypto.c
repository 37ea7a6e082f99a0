// Declarations only (include/CCrypto.h): SwiftPM builds a C target from at least one source file.
#include "CCrypto.h"
