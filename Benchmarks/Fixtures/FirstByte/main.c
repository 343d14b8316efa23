// The bare-spawn baseline's child: writes one byte to descriptor 3 and exits.
#include <unistd.h>
int main(void) {
    char byte = 1;
    return write(3, &byte, 1) == 1 ? 0 : 1;
}
