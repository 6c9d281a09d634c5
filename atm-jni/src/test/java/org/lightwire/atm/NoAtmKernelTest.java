package org.lightwire.atm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/**
 * On a kernel without ATM (this project's build machines: {@code socket(AF_ATMPVC)} fails with
 * EAFNOSUPPORT), opening a circuit must say exactly that, and how to get a kernel that has it.
 */
class NoAtmKernelTest
{
    static final String NO_ATM = "this kernel has no ATM support: socket(AF_ATMPVC/AF_ATMSVC) failed with EAFNOSUPPORT." +
        " Load the ATM modules (modprobe atm and a driver such as atmtcp) or boot a kernel built with CONFIG_ATM" +
        " (Debian's linux-image-*-amd64 has it as a module); atm-jni/src/test/qemu boots one";

    @Test
    void openingAPvcWithoutTheLibraryReportsWhyItIsUnavailable()
    {
        assumeFalse(AtmLibrary.isAvailable(), "the shim is loaded");
        final AtmLibraryUnavailableException e = assertThrows(AtmLibraryUnavailableException.class,
            () -> Aal5Link.open(Aal5Config.pvc("0.0.100")));
        assertEquals(AtmLibrary.unavailableReason(), e.getMessage());
    }

    @Test
    void openingAPvcOnAKernelWithoutAtmSaysSo() throws Exception
    {
        assumeTrue(AtmLibrary.isAvailable(), AtmLibrary.unavailableReason());
        final int probe = AtmNative.socket(false);
        if (probe >= 0)
        {
            AtmNative.close(probe);
        }
        assumeFalse(probe >= 0 || Files.exists(Path.of("/proc/net/atm")), "this kernel has ATM");
        assertEquals(-Errno.EAFNOSUPPORT, probe);

        final AtmUnsupportedException e = assertThrows(AtmUnsupportedException.class, () -> Aal5Link.open(Aal5Config.pvc("0.0.100")));
        assertEquals(NO_ATM, e.getMessage());
        assertEquals(Errno.EAFNOSUPPORT, e.errno());
        assertEquals(AtmErrors.Operation.SOCKET, e.operation());
    }

    @Test
    void listeningForSvcsOnAKernelWithoutAtmSaysSo()
    {
        assumeTrue(AtmLibrary.isAvailable(), AtmLibrary.unavailableReason());
        assumeFalse(Files.exists(Path.of("/proc/net/atm")), "this kernel has ATM");
        final Aal5Config svc = Aal5Config.builder().svc("47.0005.80ffe1000000f21a2c9b.0020481a2c9b.00").build();
        final AtmUnsupportedException e = assertThrows(AtmUnsupportedException.class, () -> Aal5Listener.listen(svc, 4));
        assertEquals(NO_ATM, e.getMessage());
    }
}
