package org.lightwire.romiop.protocol;

/** Why a received ROMIOP packet was rejected; each reason has its own drop counter. */
public enum Invalid
{
    /** Shorter than the header, or than the fixed part of its body. */
    TRUNCATED,
    /** The first four bytes are not {@code "RMOP"}. */
    BAD_MAGIC,
    /** A version other than 1.0. */
    BAD_VERSION,
    /** Reserved flag bits set. */
    BAD_FLAGS,
    /** A packet_type this version does not define. */
    UNKNOWN_TYPE,
    /** packet_size differs from the datagram length. */
    SIZE_MISMATCH,
    /** The flyweight used does not match packet_type. */
    WRONG_TYPE,
    /** A list count that does not match the bytes that follow. */
    BAD_COUNT,
    /** An enumerated field (status, acked type) out of range. */
    BAD_FIELD
}
