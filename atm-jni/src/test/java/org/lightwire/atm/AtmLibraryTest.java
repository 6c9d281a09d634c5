package org.lightwire.atm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AtmLibraryTest
{
    @Test
    void packagedLibraryLoadsWhenTheBuildMadeIt()
    {
        if (AtmLibrary.class.getClassLoader().getResource(AtmLibrary.RESOURCE) != null)
        {
            assertTrue(AtmLibrary.isAvailable(), String.valueOf(AtmLibrary.unavailableReason()));
            assertNull(AtmLibrary.unavailableReason());
        }
        else
        {
            assertTrue(AtmLibrary.unavailableReason().startsWith("library unavailable: "), AtmLibrary.unavailableReason());
            final AtmLibraryUnavailableException e = assertThrows(AtmLibraryUnavailableException.class, AtmLibrary::require);
            assertEquals(AtmLibrary.unavailableReason(), e.getMessage());
        }
    }

    @Test
    void missingResourceIsReportedAsUnavailableSayingTheBuildSkippedIt()
    {
        final String reason = AtmLibrary.load(getClass().getClassLoader(), "META-INF/native/linux-x86_64/absent.so");
        assertTrue(reason.startsWith("library unavailable: META-INF/native/linux-x86_64/absent.so is not on the class path"), reason);
        assertTrue(reason.contains("libatm1-dev"), reason);
    }

    @Test
    void corruptLibraryIsReportedWithTheLoadersReason()
    {
        final String reason = AtmLibrary.load(getClass().getClassLoader(), "org/lightwire/atm/corrupt.so");
        assertTrue(reason.startsWith("library unavailable: loading org/lightwire/atm/corrupt.so failed: "), reason);
    }
}
