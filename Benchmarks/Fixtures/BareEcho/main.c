// host.extensions.100's baseline child: holds the socket it was given as descriptor 3 and echoes
// what comes in, as an extension holds its connection; it exits when the other end closes.
#include <unistd.h>
int main(void) {
    char buffer[4096];
    for (;;) {
        ssize_t n = read(3, buffer, sizeof buffer);
        if (n <= 0) return 0;
        if (write(3, buffer, (size_t)n) != n) return 1;
    }
}
