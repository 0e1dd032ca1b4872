package io.cmdemux.observer.btf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The BTF reader on this machine's own /sys/kernel/btf/vmlinux. The expected offsets are the uapi ABI (they
 * cannot differ between kernels), so they check the reader, not the kernel: include/uapi/linux/ip.h,
 * if_ether.h, tcp.h, in6.h. iphdr's addresses sit in an anonymous union since 6.3 (__struct_group), so finding
 * them also checks the walk through anonymous members.
 */
class VmlinuxBtfTest {
    private static final Path VMLINUX = Path.of("/sys/kernel/btf/vmlinux");
    private static Layout layout;

    @BeforeAll
    static void read() throws Exception {
        assertThat(VMLINUX).as("this test needs a kernel with CONFIG_DEBUG_INFO_BTF (%s)", VMLINUX).isReadable();
        layout = new Layout(Btf.parse(Files.readAllBytes(VMLINUX)));
    }

    @Test
    void uapiStructOffsetsComeOutOfTheRunningKernelsBtf() throws Exception {
        assertThat(layout.field("iphdr", "saddr").byteOffset()).isEqualTo(12);
        assertThat(layout.field("iphdr", "daddr").byteOffset()).isEqualTo(16);
        assertThat(layout.field("iphdr", "protocol").byteOffset()).isEqualTo(9);
        assertThat(layout.field("ethhdr", "h_proto").byteOffset()).isEqualTo(12);
        assertThat(layout.field("tcphdr", "dest").byteOffset()).isEqualTo(2);
        assertThat(layout.field("sockaddr_in6", "sin6_scope_id").byteOffset()).isEqualTo(24);
        assertThat(layout.field("sockaddr_in6", "sin6_addr.in6_u.u6_addr8").size()).isEqualTo(16);
        assertThat(layout.sizeOf(layout.btf().struct("iphdr"))).isEqualTo(20);
    }

    @Test
    void bitfieldsGiveTheirWidthAndBitWithinTheByte() throws Exception {
        Field ihl = layout.field("iphdr", "ihl");
        Field version = layout.field("iphdr", "version");
        assertThat(ihl.bitfieldSize()).isEqualTo(4);
        assertThat(version.bitfieldSize()).isEqualTo(4);
        assertThat(ihl.byteOffset()).isZero();
        // Little-endian x86/arm64: ihl is the low nibble of byte 0, version the high one.
        assertThat(version.bitShift() - ihl.bitShift()).isEqualTo(4);
    }

    @Test
    void pointerMembersLeadToTheirStruct() throws Exception {
        Field dev = layout.field("sk_buff", "dev");
        assertThat(dev.pointer()).isTrue();
        assertThat(layout.target(dev).name()).isEqualTo("net_device");
    }

    @Test
    void aMissingMemberOrStructIsATypedError() {
        assertThatThrownBy(() -> layout.field("iphdr", "no_such_member")).isInstanceOf(BtfException.class)
                .hasMessageContaining("no member no_such_member");
        assertThatThrownBy(() -> layout.field("no_such_struct_cmdemux", "x")).isInstanceOf(BtfException.class);
        assertThatThrownBy(() -> layout.field("iphdr", "saddr.x")).isInstanceOf(BtfException.class)
                .hasMessageContaining("cannot take member x");
    }

    @Test
    void truncatedOrForeignBytesAreATypedErrorNeverAnUncheckedOne() throws Exception {
        byte[] all = Files.readAllBytes(VMLINUX);
        for (int len : new int[] {0, 3, 23, 24, 100, 4096}) {
            assertThatThrownBy(() -> Btf.parse(Arrays.copyOf(all, len))).isInstanceOf(BtfException.class);
        }
        byte[] elf = Arrays.copyOf(all, 64);
        elf[0] = 0x7f;
        assertThatThrownBy(() -> Btf.parse(elf)).isInstanceOf(BtfException.class).hasMessageContaining("magic");
    }
}
