#define _GNU_SOURCE
/*
 * JNI entry points of org.lightwire.atm.AtmNative: unwrap the Java arguments and call the core
 * (lwatm.c). No exception is ever thrown from here; every result is a count or -errno, mapped to
 * Java exceptions in one place (org.lightwire.atm.AtmErrors).
 */
#include <errno.h>
#include <string.h>
#include <jni.h>

#include "lwatm.h"
#include "org_lightwire_atm_AtmNative.h"

static char *buffer_at(JNIEnv *env, jobject buffer, jint position)
{
    char *base = buffer == NULL ? NULL : (char *)(*env)->GetDirectBufferAddress(env, buffer);
    return base == NULL ? NULL : base + position;
}

/* Copies a Java string into a bounded C string; ATM addresses and SAP texts are short. */
static int utf(JNIEnv *env, jstring text, char *out, size_t size)
{
    out[0] = '\0';
    if (text == NULL)
    {
        return 0;
    }
    jsize length = (*env)->GetStringUTFLength(env, text);
    if ((size_t)length >= size)
    {
        return -ENAMETOOLONG;
    }
    (*env)->GetStringUTFRegion(env, text, 0, (*env)->GetStringLength(env, text), out);
    out[length] = '\0';
    return 0;
}

JNIEXPORT jint JNICALL Java_org_lightwire_atm_AtmNative_socket(JNIEnv *env, jclass cls, jboolean svc)
{
    (void)env; (void)cls;
    return lwatm_socket(svc == JNI_TRUE);
}

JNIEXPORT jint JNICALL Java_org_lightwire_atm_AtmNative_setQos(JNIEnv *env, jclass cls, jint fd,
    jint txClass, jint txPcr, jint txMaxSdu, jint rxClass, jint rxPcr, jint rxMaxSdu)
{
    (void)env; (void)cls;
    return lwatm_set_qos(fd, txClass, txPcr, txMaxSdu, rxClass, rxPcr, rxMaxSdu);
}

JNIEXPORT jint JNICALL Java_org_lightwire_atm_AtmNative_connectPvc(JNIEnv *env, jclass cls, jint fd, jint itf, jint vpi, jint vci)
{
    (void)env; (void)cls;
    return lwatm_connect_pvc(fd, itf, vpi, vci);
}

JNIEXPORT jint JNICALL Java_org_lightwire_atm_AtmNative_setSap(JNIEnv *env, jclass cls, jint fd, jstring sap)
{
    (void)cls;
    char text[256];
    int rc = utf(env, sap, text, sizeof(text));
    return rc < 0 ? rc : lwatm_set_sap(fd, text);
}

JNIEXPORT jint JNICALL Java_org_lightwire_atm_AtmNative_connectSvc(JNIEnv *env, jclass cls, jint fd, jstring address)
{
    (void)cls;
    char text[256];
    int rc = utf(env, address, text, sizeof(text));
    return rc < 0 ? rc : lwatm_connect_svc(fd, text);
}

JNIEXPORT jint JNICALL Java_org_lightwire_atm_AtmNative_bindSvc(JNIEnv *env, jclass cls, jint fd, jstring address)
{
    (void)cls;
    char text[256];
    int rc = utf(env, address, text, sizeof(text));
    return rc < 0 ? rc : lwatm_bind_svc(fd, text);
}

JNIEXPORT jint JNICALL Java_org_lightwire_atm_AtmNative_listen(JNIEnv *env, jclass cls, jint fd, jint backlog)
{
    (void)env; (void)cls;
    return lwatm_listen(fd, backlog);
}

JNIEXPORT jint JNICALL Java_org_lightwire_atm_AtmNative_accept(JNIEnv *env, jclass cls, jint fd, jint wakeFd, jint timeoutMs)
{
    (void)env; (void)cls;
    return lwatm_accept(fd, wakeFd, timeoutMs);
}

JNIEXPORT jint JNICALL Java_org_lightwire_atm_AtmNative_linkRate(JNIEnv *env, jclass cls, jint fd, jint itf)
{
    (void)env; (void)cls;
    return lwatm_link_rate(fd, itf);
}

JNIEXPORT jint JNICALL Java_org_lightwire_atm_AtmNative_send(JNIEnv *env, jclass cls, jint fd,
    jobject a, jint aPosition, jint aLength, jobject b, jint bPosition, jint bLength)
{
    (void)cls;
    char *pa = buffer_at(env, a, aPosition);
    char *pb = bLength > 0 ? buffer_at(env, b, bPosition) : NULL;
    if (pa == NULL || (bLength > 0 && pb == NULL))
    {
        return -EFAULT;
    }
    return lwatm_send(fd, pa, aLength, pb, bLength);
}

JNIEXPORT jint JNICALL Java_org_lightwire_atm_AtmNative_recv(JNIEnv *env, jclass cls, jint fd, jint wakeFd,
    jobject dst, jint position, jint capacity, jint timeoutMs)
{
    (void)cls;
    char *p = buffer_at(env, dst, position);
    if (p == NULL)
    {
        return -EFAULT;
    }
    int truncated;
    int n = lwatm_recv(fd, wakeFd, p, capacity, timeoutMs, &truncated);
    return n >= 0 && truncated ? -EMSGSIZE : n;
}

JNIEXPORT jint JNICALL Java_org_lightwire_atm_AtmNative_wakeFd(JNIEnv *env, jclass cls)
{
    (void)env; (void)cls;
    return lwatm_wake_fd();
}

JNIEXPORT jint JNICALL Java_org_lightwire_atm_AtmNative_wake(JNIEnv *env, jclass cls, jint wakeFd)
{
    (void)env; (void)cls;
    return lwatm_wake(wakeFd);
}

JNIEXPORT jint JNICALL Java_org_lightwire_atm_AtmNative_close(JNIEnv *env, jclass cls, jint fd)
{
    (void)env; (void)cls;
    return lwatm_close(fd);
}

JNIEXPORT jstring JNICALL Java_org_lightwire_atm_AtmNative_strerror(JNIEnv *env, jclass cls, jint errnum)
{
    (void)cls;
    char text[128];
    const char *s = strerror_r(errnum, text, sizeof(text));
    return (*env)->NewStringUTF(env, s);
}

JNIEXPORT jlong JNICALL Java_org_lightwire_atm_AtmNative_datagramPair(JNIEnv *env, jclass cls)
{
    (void)env; (void)cls;
    return lwatm_datagram_pair();
}
