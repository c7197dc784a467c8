/* floorbench's loopback interposer (see floorbench/transports/loopback.py for why).
 *
 * Loaded with LD_PRELOAD into the processes that hold WebRTC participants of a
 * room on a loopback LiveKit server. Every bind() to an ephemeral port (port 0)
 * on an address outside loopback (an interface address, or the wildcard), UDP
 * or TCP, is rebound to the loopback address of the same family (127.0.0.1,
 * ::1, ::ffff:127.0.0.1). libwebrtc then gathers its ICE host candidates (UDP,
 * and passive TCP) on loopback only: nothing listens on the machine's network.
 * A bind to a chosen port (an operator's server) and a bind that already names
 * loopback pass through untouched, and so does every bind of a process started
 * without FLOORBENCH_LOOPBACK_LIB or released by floorbench_loopback_release()
 * (its WebRTC peer is outside loopback). The variable is read once, when the
 * library loads: getenv() at every bind raced with threads that set other
 * variables (setenv moves the environment), and a burst of ICE binds could then
 * read it as unset and land on the machine's address.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

typedef int (*bind_fn)(int, const struct sockaddr *, socklen_t);

static int active; /* 1 while binds are rebound; read and written atomically */

__attribute__((constructor)) static void floorbench_loopback_init(void) {
    const char *on = getenv("FLOORBENCH_LOOPBACK_LIB");
    __atomic_store_n(&active, (on && *on) ? 1 : 0, __ATOMIC_SEQ_CST);
}

/* called (through ctypes) by a process that learns its WebRTC peer is outside loopback */
void floorbench_loopback_release(void) { __atomic_store_n(&active, 0, __ATOMIC_SEQ_CST); }


int bind(int fd, const struct sockaddr *addr, socklen_t len) {
    static bind_fn real_bind;
    if (!real_bind) real_bind = (bind_fn)dlsym(RTLD_NEXT, "bind");
    /* a process whose peer is outside loopback (a WebRTC product) was released: binds as asked */
    if (!__atomic_load_n(&active, __ATOMIC_SEQ_CST)) return real_bind(fd, addr, len);
    if (addr && addr->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
        struct sockaddr_in a;
        memcpy(&a, addr, sizeof a);
        if (a.sin_port == 0 && (ntohl(a.sin_addr.s_addr) >> 24) != 127) {
            a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            return real_bind(fd, (const struct sockaddr *)&a, sizeof a);
        }
    } else if (addr && addr->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
        struct sockaddr_in6 a;
        memcpy(&a, addr, sizeof a);
        if (a.sin6_port != 0) {
            /* a chosen port: the caller's own address */
        } else if (IN6_IS_ADDR_V4MAPPED(&a.sin6_addr)) {
            if (a.sin6_addr.s6_addr[12] != 127) {
                a.sin6_addr.s6_addr[12] = 127;
                a.sin6_addr.s6_addr[13] = 0;
                a.sin6_addr.s6_addr[14] = 0;
                a.sin6_addr.s6_addr[15] = 1;
                return real_bind(fd, (const struct sockaddr *)&a, sizeof a);
            }
        } else if (!IN6_IS_ADDR_LOOPBACK(&a.sin6_addr)) {
            a.sin6_addr = in6addr_loopback;
            a.sin6_scope_id = 0;
            return real_bind(fd, (const struct sockaddr *)&a, sizeof a);
        }
    }
    return real_bind(fd, addr, len);
}
