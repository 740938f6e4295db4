// libqrencode (Debian: libqrencode-dev). Only the QRCode module imports this.
#include <qrencode.h>
