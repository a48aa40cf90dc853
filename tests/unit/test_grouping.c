/* test_grouping: library names of real map paths (Zephyr 3/4, pico-sdk 1.5/2.x with TinyUSB,
 * lwIP, CherryUSB, FreeRTOS, GNU and Zephyr toolchains, Windows, spaces) and their display
 * groups under the shipped groups/default.groups; whole map excerpts the same way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../core/image.h"
#include "../../core/mapfile.h"

#define DEFAULT_GROUPS "groups/default.groups"

typedef struct lib_case {
	const char *archive; /* NULL for a plain object */
	const char *member;
	const char *library, *group;
} lib_case;

/* Names every case's library, groups them with the shipped file and reports every
 * mismatch before failing. */
static void check_cases(const lib_case *c, size_t n)
{
	xb_image img;
	memset(&img, 0, sizeof img);
	img.libraries = xcalloc(n, sizeof *img.libraries);
	img.nlibraries = n;
	for (size_t i = 0; i < n; i++) {
		img.libraries[i].name = mapfile_library_name(c[i].archive, c[i].member);
		img.libraries[i].group = xstrdup(img.libraries[i].name);
	}
	xb_err err = {{0}};
	if (image_load_groups(&img, DEFAULT_GROUPS, &err) != 0)
		fail_msg("%s", err.msg);
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		const xb_library *l = &img.libraries[i];
		if (strcmp(l->name, c[i].library) != 0 || strcmp(l->group, c[i].group) != 0) {
			print_error("(%s, %s): got '%s' in '%s', want '%s' in '%s'\n",
				    c[i].archive ? c[i].archive : "NULL", c[i].member, l->name,
				    l->group, c[i].library, c[i].group);
			bad++;
		}
		free(l->name);
		free(l->group);
	}
	free(img.libraries);
	if (bad)
		fail_msg("%d of %zu library names or groups are wrong", bad, n);
}

#define NCASES(cases) (sizeof cases / sizeof cases[0])
#define CHECK(cases) check_cases(cases, NCASES(cases))

static void test_zephyr(void **state)
{
	(void)state;
	static const lib_case cases[] = {
		{"zephyr/kernel/libkernel.a", "sem.c.obj", "kernel", "kernel"},
		{"zephyr/arch/arch/arm/core/cortex_m/libarch__arm__core__cortex_m.a",
		 "swap_helper.S.obj", "arch/arm/core/cortex_m", "arch"},
		{"zephyr/arch/common/libisr_tables.a", "sw_isr_common.c.obj", "isr_tables", "arch"},
		{"zephyr/soc/raspberrypi/rpi_pico/rp2040/libsoc__raspberrypi__rpi_pico__rp2040.a",
		 "soc.c.obj", "soc/raspberrypi/rpi_pico/rp2040", "SoC"},
		{"zephyr/soc/arm/rpi_pico/rp2/libsoc__arm__rpi_pico__rp2.a", "soc.c.obj",
		 "soc/arm/rpi_pico/rp2", "SoC"},
		{"zephyr/subsys/net/ip/libsubsys__net__ip.a", "ipv4.c.obj", "subsys/net/ip",
		 "IP stack"},
		{"zephyr/subsys/net/l2/ethernet/libsubsys__net__l2__ethernet.a", "ethernet.c.obj",
		 "subsys/net/l2/ethernet", "Ethernet L2"},
		{"zephyr/subsys/net/l2/dummy/libsubsys__net__l2__dummy.a", "dummy.c.obj",
		 "subsys/net/l2/dummy", "network L2"},
		{"zephyr/subsys/net/lib/sockets/libsubsys__net__lib__sockets.a", "sockets.c.obj",
		 "subsys/net/lib/sockets", "sockets"},
		{"zephyr/subsys/net/lib/dhcpv4/libsubsys__net__lib__dhcpv4.a", "dhcpv4.c.obj",
		 "subsys/net/lib/dhcpv4", "network services"},
		{"zephyr/subsys/net/lib/config/libsubsys__net__lib__config.a", "init.c.obj",
		 "subsys/net/lib/config", "network services"},
		/* net_buf: subsys/net/buf.c in libsubsys__net.a (Zephyr 3), lib/net_buf (4) */
		{"zephyr/subsys/net/libsubsys__net.a", "buf.c.obj", "subsys/net/buf", "net_buf"},
		{"zephyr/subsys/net/libsubsys__net.a", "hostname.c.obj", "subsys/net",
		 "network (other)"},
		{"zephyr/lib/net_buf/liblib__net_buf.a", "buf.c.obj", "lib/net_buf", "net_buf"},
		{"zephyr/subsys/usb/device_next/libsubsys__usb__device_next.a", "usbd_ch9.c.obj",
		 "subsys/usb/device_next", "USB device stack"},
		{"zephyr/subsys/usb/device/class/netusb/libsubsys__usb__device__class__netusb.a",
		 "function_ecm.c.obj", "subsys/usb/device/class/netusb", "USB device stack"},
		/* zephyr_sources(): logging, shell, the legacy USB device stack in libzephyr.a */
		{"zephyr/libzephyr.a", "usb_transfer.c.obj", "subsys/usb/device",
		 "USB device stack"},
		{"zephyr/libzephyr.a", "usb_device.c.obj", "subsys/usb/device", "USB device stack"},
		{"zephyr/libzephyr.a", "cdc_acm.c.obj", "subsys/usb/device/class",
		 "USB device stack"},
		{"zephyr/libzephyr.a", "log_core.c.obj", "subsys/logging", "logging"},
		{"zephyr/libzephyr.a", "log_backend_uart.c.obj", "subsys/logging", "logging"},
		{"zephyr/libzephyr.a", "shell.c.obj", "subsys/shell", "shell"},
		{"zephyr/libzephyr.a", "shell_uart.c.obj", "subsys/shell", "shell"},
		{"zephyr/libzephyr.a", "cbprintf_nano.c.obj", "zephyr", "zephyr core"},
		{"zephyr/drivers/usb/udc/libdrivers__usb__udc.a", "udc_rpi_pico.c.obj",
		 "drivers/usb/udc", "USB device driver"},
		{"zephyr/drivers/usb/device/libdrivers__usb__device.a", "usb_dc_rpi_pico.c.obj",
		 "drivers/usb/device", "USB device driver"},
		{"zephyr/drivers/ethernet/libdrivers__ethernet.a", "eth_w5500.c.obj",
		 "drivers/ethernet", "Ethernet driver"},
		{"zephyr/drivers/serial/libdrivers__serial.a", "uart_pl011.c.obj", "drivers/serial",
		 "serial driver"},
		{"zephyr/drivers/console/libdrivers__console.a", "uart_console.c.obj",
		 "drivers/console", "serial driver"},
		{"zephyr/drivers/gpio/libdrivers__gpio.a", "gpio_rpi_pico.c.obj", "drivers/gpio",
		 "GPIO driver"},
		{"zephyr/drivers/timer/libdrivers__timer.a", "cortex_m_systick.c.obj",
		 "drivers/timer", "timer driver"},
		{"zephyr/drivers/clock_control/libdrivers__clock_control.a",
		 "clock_control_rpi_pico.c.obj", "drivers/clock_control", "clock and pin drivers"},
		{"zephyr/drivers/pinctrl/libdrivers__pinctrl.a", "pinctrl_rpi_pico.c.obj",
		 "drivers/pinctrl", "clock and pin drivers"},
		{"zephyr/drivers/interrupt_controller/libdrivers__interrupt_controller.a",
		 "intc_nrf_clic.c.obj", "drivers/interrupt_controller", "interrupt controller"},
		{"zephyr/drivers/entropy/libdrivers__entropy.a", "entropy_rpi_pico.c.obj",
		 "drivers/entropy", "drivers (other)"},
		{"zephyr/lib/libc/picolibc/liblib__libc__picolibc.a", "libc-hooks.c.obj",
		 "lib/libc/picolibc", "libc"},
		{"zephyr/lib/libc/common/liblib__libc__common.a", "malloc.c.obj", "lib/libc/common",
		 "libc"},
		{"modules/hal_rpi_pico/libmodules__hal_rpi_pico.a", "clocks.c.obj",
		 "modules/hal_rpi_pico", "pico hardware"},
		{"modules/hal_nordic/nrfx/libmodules__hal_nordic__nrfx.a", "nrfx_clock.c.obj",
		 "modules/hal_nordic/nrfx", "vendor HAL"},
		/* a module outside ZEPHYR_BASE: its library is named relative to it */
		{"modules/hal_stm32/stm32cube/lib..__modules__hal__stm32__stm32cube.a",
		 "stm32f4xx_ll_utils.c.obj", "modules/hal/stm32/stm32cube", "vendor HAL"},
		{"modules/cherryusb/lib..__modules__lib__cherryusb.a", "usbd_core.c.obj",
		 "modules/lib/cherryusb", "USB device stack"},
		{"app/libapp.a", "main.c.obj", "app", "app"},
		/* Zephyr's link stages and an app object */
		{NULL, "zephyr/CMakeFiles/zephyr_final.dir/isr_tables.c.obj", "zephyr",
		 "zephyr core"},
		{NULL, "zephyr/CMakeFiles/zephyr_pre0.dir/misc/empty_file.c.obj", "zephyr",
		 "zephyr core"},
		{NULL, "CMakeFiles/app.dir/src/main.c.obj", "app", "app"},
	};
	CHECK(cases);
}

#define PICO_T "CMakeFiles/pico_webserver.dir/"
#define PICO_SDK PICO_T "home/u/pico-sdk/"

static void test_pico_sdk(void **state)
{
	(void)state;
	static const lib_case cases[] = {
		/* the application's own sources, in subfolders, under a pico_ target name */
		{NULL, PICO_T "main.c.obj", "app", "app"},
		{NULL, PICO_T "src/motor/motor.c.obj", "app", "app"},
		{NULL, "CMakeFiles/app.dir/src/uart/uart_cmd.c.obj", "app", "app"},
		{NULL, PICO_T "src/common/ring/ring.c.obj", "app", "app"},
		{NULL, "CMakeFiles/blink.dir/__/common/board.c.obj", "app", "app"},
		{NULL,
		 "pico_w/wifi/tcp_server/CMakeFiles/picow_tcpip_server_background.dir/"
		 "picow_tcp_server.c.obj",
		 "app", "app"},
		/* every SDK source is compiled into that target too */
		{NULL, PICO_SDK "src/rp2_common/hardware_gpio/gpio.c.obj", "hardware_gpio",
		 "pico hardware"},
		{NULL, PICO_SDK "src/rp2_common/hardware_clocks/clocks.c.obj", "hardware_clocks",
		 "pico hardware"},
		{NULL, PICO_SDK "src/common/pico_sync/mutex.c.obj", "pico_sync", "pico runtime"},
		{NULL, PICO_SDK "src/common/pico_time/time.c.obj", "pico_time", "pico runtime"},
		{NULL, PICO_SDK "src/rp2_common/pico_standard_link/crt0.S.obj",
		 "pico_standard_link", "pico runtime"},
		{NULL, "pico-sdk/src/rp2_common/boot_stage2/bs2_default_padded_checksummed.S.obj",
		 "boot_stage2", "pico runtime"},
		/* pico-sdk 2.x as the VS Code extension installs it, RP2350 */
		{NULL,
		 "CMakeFiles/blink.dir/home/u/.pico-sdk/sdk/2.1.0/src/rp2_common/pico_crt0/"
		 "crt0.S.obj",
		 "pico_crt0", "pico runtime"},
		{NULL,
		 "CMakeFiles/blink.dir/home/u/.pico-sdk/sdk/2.1.0/src/rp2350/pico_platform/"
		 "platform.c.obj",
		 "pico_platform", "pico runtime"},
		{NULL, "pico-sdk/src/rp2040/boot_stage2/bs2_default_padded_checksummed.S.obj",
		 "boot_stage2", "pico runtime"},
		{NULL, PICO_SDK "src/rp2_common/pico_lwip/lwip_freertos.c.obj", "pico_lwip",
		 "IP stack"},
		{NULL,
		 PICO_SDK "src/rp2_common/pico_cyw43_arch/cyw43_arch_threadsafe_background.c.obj",
		 "pico_cyw43_arch", "Wi-Fi driver"},
		{NULL, PICO_SDK "lib/cyw43-driver/src/cyw43_ll.c.obj", "cyw43-driver",
		 "Wi-Fi driver"},
		{NULL, PICO_SDK "lib/btstack/src/l2cap.c.obj", "btstack", "Bluetooth stack"},
		{NULL, PICO_SDK "lib/mbedtls/library/aes.c.obj", "mbedtls", "TLS"},
		/* an SDK project in a subfolder of the build */
		{NULL,
		 "projects/hello_world/usb/CMakeFiles/hello_usb.dir/home/pawel/src/PicoNexus/"
		 "pico-sdk/src/rp2_common/pico_stdio_usb/stdio_usb.c.obj",
		 "pico_stdio_usb", "pico runtime"},
		/* the SDK inside the project */
		{NULL,
		 "CMakeFiles/bmp280_example.dir/pico-sdk/src/rp2_common/hardware_i2c/i2c.c.obj",
		 "hardware_i2c", "pico hardware"},
	};
	CHECK(cases);
}

static void test_usb_stacks(void **state)
{
	(void)state;
	static const lib_case cases[] = {
		/* TinyUSB in pico-sdk, and a checkout of its own */
		{NULL, PICO_SDK "lib/tinyusb/src/device/usbd.c.obj", "tinyusb/device",
		 "USB device stack"},
		{NULL, PICO_SDK "lib/tinyusb/src/device/usbd_control.c.obj", "tinyusb/device",
		 "USB device stack"},
		{NULL, PICO_SDK "lib/tinyusb/src/class/net/ncm_device.c.obj", "tinyusb/class",
		 "USB device stack"},
		{NULL, PICO_SDK "lib/tinyusb/src/class/cdc/cdc_device.c.obj", "tinyusb/class",
		 "USB device stack"},
		{NULL, PICO_SDK "lib/tinyusb/src/portable/raspberrypi/rp2040/dcd_rp2040.c.obj",
		 "tinyusb/portable", "USB device driver"},
		{NULL, PICO_SDK "lib/tinyusb/src/portable/raspberrypi/rp2040/rp2040_usb.c.obj",
		 "tinyusb/portable", "USB device driver"},
		{NULL, PICO_SDK "lib/tinyusb/src/common/tusb_fifo.c.obj", "tinyusb/common",
		 "USB device stack"},
		{NULL, PICO_SDK "lib/tinyusb/src/tusb.c.obj", "tinyusb", "USB device stack"},
		{NULL, PICO_SDK "lib/tinyusb/src/host/usbh.c.obj", "tinyusb/host",
		 "USB host stack"},
		{NULL, PICO_SDK "lib/tinyusb/lib/networking/rndis_reports.c.obj", "tinyusb/lib",
		 "USB device stack"},
		{NULL, "CMakeFiles/cdc_msc.dir/home/u/tinyusb-0.17.0/src/device/usbd.c.obj",
		 "tinyusb/device", "USB device stack"},
		/* an application folder that is only called tinyusb */
		{NULL, PICO_T "src/tinyusb/usb_descriptors.c.obj", "app", "app"},
		/* CherryUSB compiled into the application's target */
		{NULL, "CMakeFiles/x.dir/CherryUSB/class/cdc/usbd_cdc_ecm.c.obj", "cherryusb/class",
		 "USB device stack"},
		{NULL, "CMakeFiles/x.dir/CherryUSB/core/usbd_core.c.obj", "cherryusb/core",
		 "USB device stack"},
		{NULL, "CMakeFiles/x.dir/CherryUSB/class/wireless/usbd_rndis.c.obj",
		 "cherryusb/class", "USB device stack"},
		{NULL, "CMakeFiles/x.dir/CherryUSB/port/rp2040/usb_dc_rp2040.c.obj",
		 "cherryusb/port", "USB device driver"},
		{NULL, "CMakeFiles/x.dir/home/u/CherryUSB-1.4.1/common/usb_log.c.obj",
		 "cherryusb/common", "USB device stack"},
		{NULL, "CMakeFiles/x.dir/lib/CherryUSB/osal/usb_osal_freertos.c.obj",
		 "cherryusb/osal", "USB device stack"},
	};
	CHECK(cases);
}

static void test_lwip_freertos(void **state)
{
	(void)state;
	static const lib_case cases[] = {
		{NULL, PICO_SDK "lib/lwip/src/core/tcp_in.c.obj", "lwip/core", "IP stack"},
		{NULL, PICO_SDK "lib/lwip/src/core/ipv4/etharp.c.obj", "lwip/core", "IP stack"},
		{NULL, PICO_SDK "lib/lwip/src/netif/ethernet.c.obj", "lwip/netif", "IP stack"},
		{NULL, PICO_SDK "lib/lwip/src/api/sockets.c.obj", "lwip/api", "IP stack"},
		{NULL, PICO_SDK "lib/lwip/src/apps/http/httpd.c.obj", "lwip/apps", "lwIP apps"},
		{NULL, "CMakeFiles/x.dir/third_party/lwip-2.1.3/src/core/udp.c.obj", "lwip/core",
		 "IP stack"},
		{NULL, "CMakeFiles/x.dir/third_party/lwip/contrib/ports/freertos/sys_arch.c.obj",
		 "lwip/contrib", "IP stack"},
		/* lwIP's own CMake libraries */
		{"lib/lwip/liblwipcore.a", "tcp.c.obj", "lwipcore", "IP stack"},
		{"lib/lwip/liblwipallapps.a", "httpd.c.obj", "lwipallapps", "lwIP apps"},
		{NULL, PICO_T "src/lwip/lwip_hooks.c.obj", "app", "app"},
		/* FreeRTOS-Kernel as pico-sdk's INTERFACE library: compiled into the app */
		{NULL, PICO_T "home/u/FreeRTOS-Kernel/tasks.c.obj", "freertos", "RTOS kernel"},
		{NULL, PICO_T "home/u/FreeRTOS-Kernel/queue.c.obj", "freertos", "RTOS kernel"},
		{NULL, PICO_T "home/u/FreeRTOS-Kernel/portable/ThirdParty/GCC/RP2040/port.c.obj",
		 "freertos/portable", "RTOS kernel"},
		{NULL, PICO_T "home/u/FreeRTOS-Kernel/portable/MemMang/heap_4.c.obj",
		 "freertos/portable", "RTOS kernel"},
		{NULL, PICO_T "home/u/FreeRTOS-Kernel-V11.1.0/timers.c.obj", "freertos",
		 "RTOS kernel"},
		/* FreeRTOS's own CMake libraries, with pico-sdk sources compiled into the port */
		{"lib/FreeRTOS_Kernel/libfreertos_kernel.a", "tasks.c.obj", "freertos_kernel",
		 "RTOS kernel"},
		{"lib/FreeRTOS_Kernel/portable/libfreertos_kernel_port.a", "port.c.obj",
		 "freertos_kernel_port", "RTOS kernel"},
		{NULL,
		 "lib/FreeRTOS_Kernel/portable/CMakeFiles/freertos_kernel_port.dir/ThirdParty/"
		 "GCC/RP2040/port.c.obj",
		 "freertos/portable", "RTOS kernel"},
		{NULL,
		 "lib/FreeRTOS_Kernel/portable/CMakeFiles/freertos_kernel_port.dir/home/plebish/"
		 "pico-sdk/src/common/pico_sync/critical_section.c.obj",
		 "pico_sync", "pico runtime"},
		/* STM32CubeIDE's Middlewares: the classic FreeRTOS/Source layout, LwIP */
		{NULL, "./Middlewares/Third_Party/FreeRTOS/Source/tasks.o", "freertos",
		 "RTOS kernel"},
		{NULL, "./Middlewares/Third_Party/FreeRTOS/Source/portable/GCC/ARM_CM4F/port.o",
		 "freertos/portable", "RTOS kernel"},
		{NULL, "./Middlewares/Third_Party/LwIP/src/core/tcp.o", "lwip/core", "IP stack"},
		/* ESP-IDF's components */
		{"esp-idf/freertos/libfreertos.a", "tasks.c.obj", "freertos", "RTOS kernel"},
		{"esp-idf/lwip/liblwip.a", "tcp_in.c.obj", "lwip", "IP stack"},
	};
	CHECK(cases);
}

#define GCC12 "/usr/lib/gcc/arm-none-eabi/12.2.1/"
#define ZSDK "/opt/zephyr-sdk-0.17.0/arm-zephyr-eabi/"

static void test_toolchains(void **state)
{
	(void)state;
	static const lib_case cases[] = {
		/* GCC's startup objects: never their multilib folder */
		{NULL, GCC12 "thumb/v6-m/nofp/crti.o", "crt", "GCC runtime"},
		{NULL, GCC12 "thumb/v6-m/nofp/crtbegin.o", "crt", "GCC runtime"},
		{NULL, GCC12 "thumb/v6-m/nofp/crtend.o", "crt", "GCC runtime"},
		{NULL, GCC12 "thumb/v6-m/nofp/crtn.o", "crt", "GCC runtime"},
		{NULL,
		 "/opt/gcc-arm-none-eabi-10.3-2021.10/bin/../lib/gcc/arm-none-eabi/10.3.1/"
		 "thumb/v7e-m+fp/hard/crtbegin.o",
		 "crt", "GCC runtime"},
		{NULL, ZSDK "lib/gcc/arm-zephyr-eabi/12.2.0/thumb/v6-m/nofp/crtbegin.o", "crt",
		 "GCC runtime"},
		{NULL,
		 "/home/user/zephyr-sdk/zephyr-sdk-1.0.1/gnu/arm-zephyr-eabi/bin/../lib/gcc/"
		 "arm-zephyr-eabi/14.3.0/thumb/v8-m.main/nofp/crtn.o",
		 "crt", "GCC runtime"},
		/* newlib's and picolibc's crt0 */
		{NULL, GCC12 "../../../arm-none-eabi/lib/thumb/v6-m/nofp/crt0.o", "crt",
		 "GCC runtime"},
		{NULL, "/usr/lib/picolibc/arm-none-eabi/lib/thumb/v6-m/nofp/crt0-semihost.o", "crt",
		 "GCC runtime"},
		{NULL, "/usr/lib/arm-none-eabi/newlib/thumb/v6-m/nofp/crt0.o", "crt",
		 "GCC runtime"},
		/* the C and GCC libraries */
		{GCC12 "../../../arm-none-eabi/lib/thumb/v6-m/nofp/libc_nano.a", "libc_a-memset.o",
		 "libc", "libc"},
		{"/usr/lib/arm-none-eabi/lib/libc.a", "memcpy.o", "libc", "libc"},
		{GCC12 "../../../arm-none-eabi/lib/thumb/v6-m/nofp/libg_nano.a", "libc_a-printf.o",
		 "libc", "libc"},
		{GCC12 "../../../arm-none-eabi/lib/thumb/v6-m/nofp/libnosys.a", "sbrk.o", "libc",
		 "libc"},
		{GCC12 "../../../arm-none-eabi/lib/thumb/v6-m/nofp/libm.a", "libm_a-s_fabs.o",
		 "libm", "libc"},
		{ZSDK "picolibc/arm-zephyr-eabi/lib/thumb/v6-m/nofp/libc.a",
		 "libc_string_memcpy.c.o", "libc", "libc"},
		{"/usr/lib/picolibc/arm-none-eabi/lib/thumb/v6-m/nofp/libc.a",
		 "libc_tinystdio_vfprintf.c.o", "libc", "libc"},
		{GCC12 "thumb/v6-m/nofp/libgcc.a", "_udivsi3.o", "libgcc", "GCC runtime"},
		{ZSDK "lib/gcc/arm-zephyr-eabi/12.2.0/thumb/v6-m/nofp/libgcc.a",
		 "_thumb1_case_uqi.o", "libgcc", "GCC runtime"},
		{GCC12 "../../../arm-none-eabi/lib/thumb/v6-m/nofp/libstdc++_nano.a", "new_op.o",
		 "libstdc++", "GCC runtime"},
		/* what the linker makes */
		{NULL, "/tmp/ccuedWlF.ltrans0.ltrans.o", "lto", "LTO partition"},
		{NULL, "linker stubs", "linker", "linker veneers"},
	};
	CHECK(cases);
}

static void test_windows_and_spaces(void **state)
{
	(void)state;
	static const lib_case cases[] = {
		{NULL,
		 "c:/program files (x86)/gnu arm embedded toolchain/10 2021.10/bin/../lib/gcc/"
		 "arm-none-eabi/10.3.1/thumb/v6-m/nofp/crti.o",
		 "crt", "GCC runtime"},
		{NULL,
		 "c:\\program files (x86)\\gnu arm embedded toolchain\\10 2021.10\\bin\\..\\lib\\"
		 "gcc\\arm-none-eabi\\10.3.1\\thumb\\v6-m\\nofp\\crtbegin.o",
		 "crt", "GCC runtime"},
		{NULL,
		 "C:/Program Files/Raspberry Pi/Pico SDK v1.5.1/gcc-arm-none-eabi/bin/../lib/gcc/"
		 "arm-none-eabi/10.3.1/thumb/v6-m/nofp/crtend.o",
		 "crt", "GCC runtime"},
		{"C:/Users/Byron Chan/Documents/trial/arm-gnu-toolchain-13.2.Rel1-mingw-w64-i686-"
		 "arm-none-eabi/bin/../lib/gcc/arm-none-eabi/13.2.1/thumb/v6-m/nofp\\libc_nano.a",
		 "libc_a-closer.o", "libc", "libc"},
		{"C:/ncs/v2.5.0/nrfxlib/nrf_modem/lib/nRF9160/soft-float/libmodem.a", "nrf_modem.o",
		 "modem", "modem"},
		{NULL,
		 "CMakeFiles/bmp280_example.dir/C_/pico-sdk/lib/tinyusb/src/device/usbd.c.obj",
		 "tinyusb/device", "USB device stack"},
		{NULL,
		 "CMakeFiles\\pico_webserver.dir\\C_\\Users\\John_Doe\\.pico-sdk\\sdk\\2.1.0\\src"
		 "\\rp2_common\\hardware_pio\\pio.c.obj",
		 "hardware_pio", "pico hardware"},
		{NULL, "CMakeFiles\\pico_webserver.dir\\src\\motor\\motor.c.obj", "app", "app"},
		{NULL, "C:\\Users\\u\\AppData\\Local\\Temp\\ccAbCdEf.ltrans3.ltrans.o", "lto",
		 "LTO partition"},
		{NULL, "C:\\work\\build\\obj\\drivers\\uart.o", "drivers", "USB device driver"},
		{NULL, "C:/My Projects/fw/build/main.o", "app", "app"},
		{NULL, "/home/u/My Firmware/CherryUSB/core/usbd_core.c.o", "cherryusb/core",
		 "USB device stack"},
	};
	CHECK(cases);
}

/* Builds without CMake: the nearest folder that names something, else the app. */
static void test_make_builds(void **state)
{
	(void)state;
	static const lib_case cases[] = {
		{NULL, "main.o", "app", "app"},
		{NULL, "build/main.o", "app", "app"},
		{NULL, "build/obj/app/main.o", "app", "app"},
		{NULL, "/tmp/xb-fixture/obj/app/vectors.o", "app", "app"},
		{NULL, "/home/u/projects/blinky/build/src/main.o", "app", "app"},
		{NULL, "./Core/Src/main.o", "Core", "Core"},
		{NULL, "./Drivers/STM32F4xx_HAL_Driver/Src/stm32f4xx_hal_gpio.o",
		 "STM32F4xx_HAL_Driver", "STM32F4xx_HAL_Driver"},
		/* the test firmware of tests/data/build-fixture.sh */
		{"/tmp/xb-fixture/libnet.a", "ipv4.o", "net", "IP stack"},
		{"/tmp/xb-fixture/libusb.a", "control.o", "usb", "USB device stack"},
		{"/tmp/xb-fixture/libdrivers.a", "usb_dc.o", "drivers", "USB device driver"},
		{"/tmp/xb-fixture/libkernel.a", "sched.o", "kernel", "kernel"},
	};
	CHECK(cases);
}

/* Whole maps: every placed input section gets the library and group its line says. */
typedef struct map_case {
	const char *section;
	uint64_t addr;
	const char *library, *group;
} map_case;

static void check_map(const char *path, const map_case *c, size_t n)
{
	xb_map m;
	xb_err err = {{0}};
	if (mapfile_load(&m, path, &err) != 0)
		fail_msg("%s", err.msg);
	lib_case *lc = xcalloc(m.ninputs, sizeof *lc);
	assert_int_equal(m.ninputs, n);
	for (size_t i = 0; i < n; i++) {
		long k = mapfile_input_at(&m, c[i].addr);
		if (k < 0 || strcmp(m.inputs[k].section, c[i].section) != 0)
			fail_msg("%s: no input %s at 0x%llx", path, c[i].section,
				 (unsigned long long)c[i].addr);
		lc[i] = (lib_case){m.inputs[k].archive, m.inputs[k].member, c[i].library,
				   c[i].group};
	}
	check_cases(lc, n);
	free(lc);
	mapfile_free(&m);
}

static void test_pico_webserver_map(void **state)
{
	(void)state;
	static const map_case cases[] = {
		{".boot2", 0x10000000, "boot_stage2", "pico runtime"},
		{".vectors", 0x10000100, "pico_crt0", "pico runtime"},
		{".init", 0x100001c0, "crt", "GCC runtime"},
		{".init", 0x100001c4, "crt", "GCC runtime"},
		{".text", 0x100001cc, "crt", "GCC runtime"},
		{".text.main", 0x10000238, "app", "app"},
		{".text.motor_step", 0x10000280, "app", "app"},
		{".text.uart_cmd_poll", 0x100002fc, "app", "app"},
		{".text.gpio_set_function", 0x10000398, "hardware_gpio", "pico hardware"},
		{".text.mutex_enter_blocking", 0x100003c8, "pico_sync", "pico runtime"},
		{".text.tud_task_ext", 0x10000424, "tinyusb/device", "USB device stack"},
		{".text.netd_xfer_cb", 0x10000618, "tinyusb/class", "USB device stack"},
		{".text.dcd_edpt_xfer", 0x10000728, "tinyusb/portable", "USB device driver"},
		{".text.tcp_input", 0x100007b8, "lwip/core", "IP stack"},
		{".text.etharp_input", 0x10000e90, "lwip/core", "IP stack"},
		{".text.ethernet_input", 0x10001054, "lwip/netif", "IP stack"},
		{".text.http_recv", 0x10001124, "lwip/apps", "lwIP apps"},
		{".text.sys_check_timeouts", 0x100013dc, "pico_lwip", "IP stack"},
		{".text.xTaskIncrementTick", 0x10001438, "freertos", "RTOS kernel"},
		{".text.xQueueReceive", 0x10001584, "freertos", "RTOS kernel"},
		{".text.pvPortMalloc", 0x10001724, "freertos/portable", "RTOS kernel"},
		{".text.isr_pendsv", 0x10001840, "freertos/portable", "RTOS kernel"},
		{".text", 0x10001898, "libc", "libc"},
		{".text", 0x100018a8, "libgcc", "GCC runtime"},
		{".time_critical.irq_handler_chain_first_slot", 0x20000000, "hardware_irq",
		 "pico hardware"},
	};
	check_map("tests/data/maps/pico-webserver-excerpt.map", cases, NCASES(cases));
}

static void test_cherryusb_windows_map(void **state)
{
	(void)state;
	static const map_case cases[] = {
		{".init", 0x10000100, "crt", "GCC runtime"},
		{".text", 0x10000104, "crt", "GCC runtime"},
		{".text.main", 0x10000170, "app", "app"},
		{".text.netif_glue_input", 0x100001b0, "app", "app"},
		{".text.usbd_event_ep0_setup_complete_handler", 0x10000214, "cherryusb/core",
		 "USB device stack"},
		{".text.usbd_cdc_ecm_eth_rx", 0x100003cc, "cherryusb/class", "USB device stack"},
		{".text.rndis_bulk_out", 0x10000424, "cherryusb/class", "USB device stack"},
		{".text.usbd_ep_start_read", 0x100004c0, "cherryusb/port", "USB device driver"},
		{".text.irq_set_enabled", 0x10000534, "hardware_irq", "pico hardware"},
		{".text.runtime_init", 0x10000558, "pico_runtime", "pico runtime"},
		{".text", 0x100005e8, "libc", "libc"},
		{".text", 0x100005f8, "libgcc", "GCC runtime"},
	};
	check_map("tests/data/maps/cherryusb-windows-excerpt.map", cases, NCASES(cases));
}

static void test_zephyr4_map(void **state)
{
	(void)state;
	static const map_case cases[] = {
		{".boot2", 0x10000000, "modules/hal_rpi_pico", "pico hardware"},
		{".exc_vector_table._vector_table_section", 0x10000100, "arch/arm/core/cortex_m",
		 "arch"},
		{"_IRQ_VECTOR_TABLE", 0x10000140, "zephyr", "zephyr core"},
		{".text", 0x10000200, "arch/arm/core/cortex_m", "arch"},
		{".text", 0x10000230, "crt", "GCC runtime"},
		{".text", 0x1000029c, "libgcc", "GCC runtime"},
		{".text.main", 0x100002d0, "app", "app"},
		{".text.z_sched_ipi", 0x10000320, "kernel", "kernel"},
		{".text.z_impl_k_sem_give", 0x1000033c, "kernel", "kernel"},
		{".text.z_get_sw_isr_table_idx", 0x100003a0, "isr_tables", "arch"},
		{".text.soc_reset_hook", 0x100003a8, "soc/raspberrypi/rpi_pico/rp2040", "SoC"},
		{".text.clock_configure", 0x100003bc, "modules/hal_rpi_pico", "pico hardware"},
		{".text.z_impl_z_log_msg_static_create", 0x10000444, "subsys/logging", "logging"},
		{".text.z_log_msg_commit", 0x1000052c, "subsys/logging", "logging"},
		{".text.shell_process", 0x10000568, "subsys/shell", "shell"},
		{".text.shell_uart_write", 0x10000588, "subsys/shell", "shell"},
		{".text.cbvprintf", 0x100005e0, "zephyr", "zephyr core"},
		{".text.usb_transfer_work", 0x10000788, "subsys/usb/device", "USB device stack"},
		{".text.usb_write", 0x100009cc, "subsys/usb/device", "USB device stack"},
		{".text.ecm_read_cb", 0x10000ac8, "subsys/usb/device/class/netusb",
		 "USB device stack"},
		{".text.usb_dc_ep_read", 0x10000be0, "drivers/usb/device", "USB device driver"},
		{".text.pl011_poll_out", 0x10000cc4, "drivers/serial", "serial driver"},
		{".text.gpio_rpi_pico_isr", 0x10000cf0, "drivers/gpio", "GPIO driver"},
		{".text.sys_clock_isr", 0x10000d68, "drivers/timer", "timer driver"},
		{".text.net_recv_data", 0x10000df8, "subsys/net/ip", "IP stack"},
		{".text.ethernet_recv", 0x10000e90, "subsys/net/l2/ethernet", "Ethernet L2"},
		{".text.zsock_recvfrom_ctx", 0x10000fb8, "subsys/net/lib/sockets", "sockets"},
		{".text.dhcpv4_input", 0x10001024, "subsys/net/lib/dhcpv4", "network services"},
		{".text.net_buf_alloc_len", 0x10001214, "lib/net_buf", "net_buf"},
		{".text.zephyr_fputc", 0x100012b0, "lib/libc/picolibc", "libc"},
		{".text.memcpy", 0x100012c8, "libc", "libc"},
	};
	check_map("tests/data/maps/zephyr4-excerpt.map", cases, NCASES(cases));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zephyr),
		cmocka_unit_test(test_pico_sdk),
		cmocka_unit_test(test_usb_stacks),
		cmocka_unit_test(test_lwip_freertos),
		cmocka_unit_test(test_toolchains),
		cmocka_unit_test(test_windows_and_spaces),
		cmocka_unit_test(test_make_builds),
		cmocka_unit_test(test_pico_webserver_map),
		cmocka_unit_test(test_cherryusb_windows_map),
		cmocka_unit_test(test_zephyr4_map),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
