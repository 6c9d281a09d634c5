package org.lightwire.atm;

import java.nio.ByteBuffer;

/**
 * The JNI entry points of the C shim ({@code src/main/c/lwatm_jni.c}). Every method takes
 * primitives (direct buffers for data, short strings for SVC addresses) and returns a count, a
 * descriptor or 0 on success, or {@code -errno} on failure, retrying on EINTR itself. Nothing here
 * throws: {@link AtmErrors} turns a {@code -errno} into an exception in one place.
 *
 * <p>Call only after {@link AtmLibrary#require()} succeeded.
 */
final class AtmNative
{
    private AtmNative()
    {
    }

    static native int socket(boolean svc);

    static native int setQos(int fd, int txClass, int txPcr, int txMaxSdu, int rxClass, int rxPcr, int rxMaxSdu);

    static native int connectPvc(int fd, int itf, int vpi, int vci);

    static native int setSap(int fd, String sap);

    static native int connectSvc(int fd, String address);

    static native int bindSvc(int fd, String address);

    static native int listen(int fd, int backlog);

    /** @return the new circuit's descriptor, {@code -EAGAIN} on timeout, {@code -ECANCELED} when woken. */
    static native int accept(int fd, int wakeFd, int timeoutMs);

    /** @return the interface's link rate in cells per second. */
    static native int linkRate(int fd, int itf);

    /** Sends {@code a} then {@code b} (may be null when {@code bLength} is 0) as one AAL5 SDU. */
    static native int send(int fd, ByteBuffer a, int aPosition, int aLength, ByteBuffer b, int bPosition, int bLength);

    /**
     * @param timeoutMs 0 polls, negative waits forever.
     * @return the SDU's length, {@code -EAGAIN} on timeout, {@code -ECANCELED} when woken,
     *     {@code -EMSGSIZE} when an SDU larger than {@code capacity} was received and dropped.
     */
    static native int recv(int fd, int wakeFd, ByteBuffer dst, int position, int capacity, int timeoutMs);

    static native int wakeFd();

    static native int wake(int wakeFd);

    static native int close(int fd);

    static native String strerror(int errno);

    /**
     * A connected AF_UNIX datagram socket pair, which keeps message boundaries as an AAL5 circuit
     * does, so that the data path can be tested on a kernel without ATM.
     *
     * @return {@code fd0 << 32 | fd1}, or {@code -errno}.
     */
    static native long datagramPair();
}
