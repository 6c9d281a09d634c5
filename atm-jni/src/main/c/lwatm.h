/*
 * lwatm: the native core of Lightwire's ATM shim, free of JNI so that a plain C test can drive it.
 *
 * Every function returns a non-negative result (a descriptor, a byte count, 0) or -errno, and
 * retries on EINTR. Nothing here allocates, logs, or keeps state between calls.
 */
#ifndef LWATM_H
#define LWATM_H

#include <stddef.h>

/* Returned by lwatm_recv when the wait ended because lwatm_wake was called on the wake fd. */
#define LWATM_WOKEN (-ECANCELED)

/* Traffic classes as in <linux/atm.h>: ATM_NONE 0, ATM_UBR 1, ATM_CBR 2. */

int lwatm_socket(int svc);
int lwatm_set_qos(int fd, int tx_class, int tx_pcr, int tx_max_sdu, int rx_class, int rx_pcr, int rx_max_sdu);
int lwatm_connect_pvc(int fd, int itf, int vpi, int vci);
int lwatm_set_sap(int fd, const char *sap_text);
int lwatm_connect_svc(int fd, const char *address_text);
int lwatm_bind_svc(int fd, const char *address_text);
int lwatm_listen(int fd, int backlog);
int lwatm_accept(int fd, int wake_fd, int timeout_ms);
int lwatm_link_rate(int fd, int itf);
int lwatm_send(int fd, const void *a, int a_len, const void *b, int b_len);
int lwatm_recv(int fd, int wake_fd, void *dst, int capacity, int timeout_ms, int *truncated);
int lwatm_wake_fd(void);
int lwatm_wake(int wake_fd);
int lwatm_close(int fd);

/* A connected AF_UNIX datagram pair (fd0 << 32 | fd1), which keeps SDU boundaries like an AAL5
 * circuit: lets the data path be tested on a kernel without ATM. */
long long lwatm_datagram_pair(void);

#endif
