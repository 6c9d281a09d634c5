/*
 * lwatm: the native core of Lightwire's ATM shim over the Linux ATM socket API (raw AAL5).
 * See lwatm.h. The JNI layer (lwatm_jni.c) only unwraps Java arguments and calls these.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <linux/atm.h>
#include <linux/atmdev.h>
#include <atm.h>

#include "lwatm.h"

#define RETRY(expr) ({ long r_; do { r_ = (long)(expr); } while (r_ < 0 && errno == EINTR); r_; })

static int neg_errno(void)
{
    return errno > 0 ? -errno : -EIO;
}

int lwatm_socket(int svc)
{
    int fd = (int)RETRY(socket(svc ? PF_ATMSVC : PF_ATMPVC, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    return fd < 0 ? neg_errno() : fd;
}

static void trafprm(struct atm_trafprm *tp, int traffic_class, int pcr, int max_sdu)
{
    memset(tp, 0, sizeof(*tp));
    tp->traffic_class = (unsigned char)traffic_class;
    tp->max_sdu = max_sdu;
    /* CBR reserves exactly the peak cell rate; UBR's pcr is a ceiling, 0 meaning line rate. */
    tp->pcr = pcr;
    if (traffic_class == ATM_CBR)
    {
        tp->min_pcr = pcr;
        tp->max_pcr = pcr;
    }
}

int lwatm_set_qos(int fd, int tx_class, int tx_pcr, int tx_max_sdu, int rx_class, int rx_pcr, int rx_max_sdu)
{
    struct atm_qos qos;
    memset(&qos, 0, sizeof(qos));
    qos.aal = ATM_AAL5;
    trafprm(&qos.txtp, tx_class, tx_pcr, tx_max_sdu);
    trafprm(&qos.rxtp, rx_class, rx_pcr, rx_max_sdu);
    return RETRY(setsockopt(fd, SOL_ATM, SO_ATMQOS, &qos, sizeof(qos))) < 0 ? neg_errno() : 0;
}

int lwatm_connect_pvc(int fd, int itf, int vpi, int vci)
{
    struct sockaddr_atmpvc addr;
    memset(&addr, 0, sizeof(addr));
    addr.sap_family = AF_ATMPVC;
    addr.sap_addr.itf = (short)itf;
    addr.sap_addr.vpi = (short)vpi;
    addr.sap_addr.vci = vci;
    return RETRY(connect(fd, (struct sockaddr *)&addr, sizeof(addr))) < 0 ? neg_errno() : 0;
}

int lwatm_set_sap(int fd, const char *sap_text)
{
    struct atm_sap sap;
    memset(&sap, 0, sizeof(sap));
    if (sap_text != NULL && sap_text[0] != '\0' && text2sap(sap_text, &sap, 0) < 0)
    {
        return -EINVAL;
    }
    return RETRY(setsockopt(fd, SOL_ATM, SO_ATMSAP, &sap, sizeof(sap))) < 0 ? neg_errno() : 0;
}

static int svc_address(const char *text, struct sockaddr_atmsvc *addr)
{
    memset(addr, 0, sizeof(*addr));
    /* T2A_LOCAL: no ANS name lookups behind the caller's back, only literal addresses. */
    return text2atm(text, (struct sockaddr *)addr, sizeof(*addr), T2A_SVC | T2A_WILDCARD | T2A_LOCAL) < 0 ? -EDESTADDRREQ : 0;
}

int lwatm_connect_svc(int fd, const char *address_text)
{
    struct sockaddr_atmsvc addr;
    int rc = svc_address(address_text, &addr);
    if (rc < 0)
    {
        return rc;
    }
    return RETRY(connect(fd, (struct sockaddr *)&addr, sizeof(addr))) < 0 ? neg_errno() : 0;
}

int lwatm_bind_svc(int fd, const char *address_text)
{
    struct sockaddr_atmsvc addr;
    int rc = svc_address(address_text, &addr);
    if (rc < 0)
    {
        return rc;
    }
    return RETRY(bind(fd, (struct sockaddr *)&addr, sizeof(addr))) < 0 ? neg_errno() : 0;
}

int lwatm_listen(int fd, int backlog)
{
    return RETRY(listen(fd, backlog)) < 0 ? neg_errno() : 0;
}

static int wait_readable(int fd, int wake_fd, int timeout_ms)
{
    struct pollfd fds[2];
    fds[0].fd = fd;
    fds[0].events = POLLIN;
    fds[1].fd = wake_fd;
    fds[1].events = POLLIN;
    for (;;)
    {
        fds[0].revents = 0;
        fds[1].revents = 0;
        int n = poll(fds, wake_fd >= 0 ? 2 : 1, timeout_ms);
        if (n < 0 && errno == EINTR)
        {
            continue; /* a signal shortens the wait; the caller's loop recomputes its deadline */
        }
        if (n < 0)
        {
            return neg_errno();
        }
        if (n == 0)
        {
            return -EAGAIN;
        }
        if (wake_fd >= 0 && (fds[1].revents & POLLIN))
        {
            return LWATM_WOKEN;
        }
        return 0;
    }
}

int lwatm_accept(int fd, int wake_fd, int timeout_ms)
{
    int rc = wait_readable(fd, wake_fd, timeout_ms);
    if (rc < 0)
    {
        return rc;
    }
    int child = (int)RETRY(accept4(fd, NULL, NULL, SOCK_CLOEXEC));
    return child < 0 ? neg_errno() : child;
}

int lwatm_link_rate(int fd, int itf)
{
    int rate = 0;
    struct atmif_sioc req;
    memset(&req, 0, sizeof(req));
    req.number = itf;
    req.length = sizeof(rate);
    req.arg = &rate;
    return RETRY(ioctl(fd, ATM_GETLINKRATE, &req)) < 0 ? neg_errno() : rate;
}

int lwatm_send(int fd, const void *a, int a_len, const void *b, int b_len)
{
    struct iovec iov[2];
    struct msghdr msg;
    memset(&msg, 0, sizeof(msg));
    iov[0].iov_base = (void *)a;
    iov[0].iov_len = (size_t)a_len;
    iov[1].iov_base = (void *)b;
    iov[1].iov_len = (size_t)(b == NULL ? 0 : b_len);
    msg.msg_iov = iov;
    msg.msg_iovlen = iov[1].iov_len > 0 ? 2 : 1;
    /* One sendmsg is one AAL5 SDU: the kernel gathers both parts into one CPCS-PDU. */
    long n = RETRY(sendmsg(fd, &msg, MSG_NOSIGNAL));
    return n < 0 ? neg_errno() : (int)n;
}

int lwatm_recv(int fd, int wake_fd, void *dst, int capacity, int timeout_ms, int *truncated)
{
    *truncated = 0;
    if (timeout_ms != 0)
    {
        int rc = wait_readable(fd, wake_fd, timeout_ms);
        if (rc < 0)
        {
            return rc;
        }
    }
    struct iovec iov;
    struct msghdr msg;
    memset(&msg, 0, sizeof(msg));
    iov.iov_base = dst;
    iov.iov_len = (size_t)capacity;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    long n = RETRY(recvmsg(fd, &msg, MSG_DONTWAIT));
    if (n < 0)
    {
        return errno == EWOULDBLOCK ? -EAGAIN : neg_errno();
    }
    if (n == 0)
    {
        /*
         * Linux ATM never delivers an empty SDU (vcc_sendmsg sends nothing for one); recvmsg
         * returns 0 when the circuit was released or closed (vcc_recvmsg), and the release
         * left its reason in the socket's error (vcc_release_async: EPIPE, or the driver's).
         */
        int err = 0;
        socklen_t len = sizeof(err);
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err != 0)
        {
            return -err;
        }
        return -EPIPE;
    }
    if (msg.msg_flags & MSG_TRUNC)
    {
        *truncated = 1;
    }
    return (int)n;
}

int lwatm_wake_fd(void)
{
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    return fd < 0 ? neg_errno() : fd;
}

int lwatm_wake(int wake_fd)
{
    uint64_t one = 1;
    return RETRY(write(wake_fd, &one, sizeof(one))) < 0 ? neg_errno() : 0;
}

int lwatm_close(int fd)
{
    /* Never retry close on EINTR: Linux has released the descriptor already. */
    return close(fd) < 0 && errno != EINTR ? neg_errno() : 0;
}

long long lwatm_datagram_pair(void)
{
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, fds) < 0)
    {
        return neg_errno();
    }
    return ((long long)fds[0] << 32) | (unsigned int)fds[1];
}
