/* regs.h: RP2040 register addresses and fields this firmware uses (RP2040 datasheet). */
#ifndef RP2040_REGS_H
#define RP2040_REGS_H

#include <stdint.h>

/* ---- Bus access and the atomic aliases of APB/AHB peripherals (datasheet 2.1.2) ---- */
#define REG_ALIAS_XOR 0x1000u
#define REG_ALIAS_SET 0x2000u
#define REG_ALIAS_CLR 0x3000u

static inline uint32_t hw_read(uint32_t addr)
{
	return *(volatile uint32_t *)addr;
}

static inline void hw_write(uint32_t addr, uint32_t v)
{
	*(volatile uint32_t *)addr = v;
}

static inline void hw_set_bits(uint32_t addr, uint32_t mask)
{
	hw_write(addr + REG_ALIAS_SET, mask);
}

static inline void hw_clear_bits(uint32_t addr, uint32_t mask)
{
	hw_write(addr + REG_ALIAS_CLR, mask);
}

/* Changes only the bits in mask, without a read-modify-write race: XOR in the difference. */
static inline void hw_write_masked(uint32_t addr, uint32_t value, uint32_t mask)
{
	hw_write(addr + REG_ALIAS_XOR, (hw_read(addr) ^ value) & mask);
}

/* ---- Address map ---- */
#define XIP_CTRL_BASE 0x14000000u
#define SYSINFO_BASE 0x40000000u
#define CLOCKS_BASE 0x40008000u
#define RESETS_BASE 0x4000C000u
#define IO_BANK0_BASE 0x40014000u
#define PADS_BANK0_BASE 0x4001C000u
#define XOSC_BASE 0x40024000u
#define PLL_SYS_BASE 0x40028000u
#define PLL_USB_BASE 0x4002C000u
#define UART0_BASE 0x40034000u
#define TIMER_BASE 0x40054000u
#define WATCHDOG_BASE 0x40058000u
#define USBCTRL_DPRAM_BASE 0x50100000u
#define USBCTRL_REGS_BASE 0x50110000u
#define SIO_BASE 0xD0000000u
#define PPB_BASE 0xE0000000u

/* ---- XIP_CTRL ---- */
#define XIP_CTRL_CTRL (XIP_CTRL_BASE + 0x00)
#define XIP_CTRL_EN BIT32(0)
#define XIP_CTRL_FLUSH (XIP_CTRL_BASE + 0x04)
#define XIP_CTRL_STAT (XIP_CTRL_BASE + 0x08)
#define XIP_CTRL_CTR_HIT (XIP_CTRL_BASE + 0x0C)
#define XIP_CTRL_CTR_ACC (XIP_CTRL_BASE + 0x10)

#define BIT32(n) ((uint32_t)1u << (n))

/* ---- SYSINFO ---- */
#define SYSINFO_CHIP_ID (SYSINFO_BASE + 0x00)

/* ---- RESETS ---- */
#define RESETS_RESET (RESETS_BASE + 0x0)
#define RESETS_RESET_DONE (RESETS_BASE + 0x8)
#define RESET_ADC BIT32(0)
#define RESET_IO_BANK0 BIT32(5)
#define RESET_IO_QSPI BIT32(6)
#define RESET_PADS_BANK0 BIT32(8)
#define RESET_PADS_QSPI BIT32(9)
#define RESET_PLL_SYS BIT32(12)
#define RESET_PLL_USB BIT32(13)
#define RESET_RTC BIT32(15)
#define RESET_SPI0 BIT32(16)
#define RESET_SPI1 BIT32(17)
#define RESET_SYSCFG BIT32(18)
#define RESET_TIMER BIT32(21)
#define RESET_UART0 BIT32(22)
#define RESET_UART1 BIT32(23)
#define RESET_USBCTRL BIT32(24)
#define RESET_ALL 0x01FFFFFFu

/* ---- CLOCKS: each clock has CTRL, DIV, SELECTED ---- */
#define CLK_REF_CTRL (CLOCKS_BASE + 0x30)
#define CLK_REF_DIV (CLOCKS_BASE + 0x34)
#define CLK_REF_SELECTED (CLOCKS_BASE + 0x38)
#define CLK_SYS_CTRL (CLOCKS_BASE + 0x3C)
#define CLK_SYS_DIV (CLOCKS_BASE + 0x40)
#define CLK_SYS_SELECTED (CLOCKS_BASE + 0x44)
#define CLK_PERI_CTRL (CLOCKS_BASE + 0x48)
#define CLK_USB_CTRL (CLOCKS_BASE + 0x54)
#define CLK_USB_DIV (CLOCKS_BASE + 0x58)
#define CLK_ADC_CTRL (CLOCKS_BASE + 0x60)
#define CLK_ADC_DIV (CLOCKS_BASE + 0x64)
#define CLK_RTC_CTRL (CLOCKS_BASE + 0x6C)
#define CLK_RTC_DIV (CLOCKS_BASE + 0x70)
#define CLK_SYS_RESUS_CTRL (CLOCKS_BASE + 0x78)
#define CLK_CTRL_ENABLE BIT32(11)
#define CLK_CTRL_AUXSRC_SHIFT 5
#define CLK_REF_SRC_XOSC 2u
#define CLK_SYS_SRC_AUX 1u

/* ---- XOSC ---- */
#define XOSC_CTRL (XOSC_BASE + 0x00)
#define XOSC_STATUS (XOSC_BASE + 0x04)
#define XOSC_STARTUP (XOSC_BASE + 0x0C)
#define XOSC_CTRL_FREQ_RANGE_1_15MHZ 0xAA0u
#define XOSC_CTRL_ENABLE_VALUE (0xFABu << 12)
#define XOSC_STATUS_STABLE BIT32(31)

/* ---- PLL (offsets from PLL_SYS_BASE or PLL_USB_BASE) ---- */
#define PLL_CS 0x0
#define PLL_PWR 0x4
#define PLL_FBDIV_INT 0x8
#define PLL_PRIM 0xC
#define PLL_CS_LOCK BIT32(31)
#define PLL_PWR_PD BIT32(0)
#define PLL_PWR_POSTDIVPD BIT32(3)
#define PLL_PWR_VCOPD BIT32(5)
#define PLL_PRIM_POSTDIV1_SHIFT 16
#define PLL_PRIM_POSTDIV2_SHIFT 12

/* ---- WATCHDOG ---- */
#define WATCHDOG_TICK (WATCHDOG_BASE + 0x2C)
#define WATCHDOG_TICK_ENABLE BIT32(9)

/* ---- IO_BANK0 / PADS_BANK0 ---- */
#define IO_BANK0_GPIO_CTRL(n) (IO_BANK0_BASE + 8u * (n) + 4u)
#define GPIO_FUNC_UART 2u
#define PADS_BANK0_GPIO(n) (PADS_BANK0_BASE + 4u + 4u * (n))
#define PADS_IE BIT32(6)
#define PADS_OD BIT32(7)

/* ---- UART0 (PL011) ---- */
#define UART_DR 0x000
#define UART_FR 0x018
#define UART_IBRD 0x024
#define UART_FBRD 0x028
#define UART_LCR_H 0x02C
#define UART_CR 0x030
#define UART_IFLS 0x034
#define UART_IMSC 0x038
#define UART_MIS 0x040
#define UART_ICR 0x044
#define UART_FR_TXFF BIT32(5)
#define UART_FR_BUSY BIT32(3)
#define UART_LCR_H_WLEN_8 (3u << 5)
#define UART_LCR_H_FEN BIT32(4)
#define UART_CR_UARTEN BIT32(0)
#define UART_CR_TXE BIT32(8)
#define UART_CR_RXE BIT32(9)
#define UART_INT_TX BIT32(5)

/* ---- TIMER ---- */
#define TIMER_ALARM(n) (TIMER_BASE + 0x10 + 4u * (n))
#define TIMER_ARMED (TIMER_BASE + 0x20)
#define TIMER_TIMERAWH (TIMER_BASE + 0x24)
#define TIMER_TIMERAWL (TIMER_BASE + 0x28)
#define TIMER_INTR (TIMER_BASE + 0x34)
#define TIMER_INTE (TIMER_BASE + 0x38)

/* ---- SIO ---- */
#define SIO_CPUID (SIO_BASE + 0x000)

/* ---- NVIC lines ---- */
#define IRQ_TIMER_0 0
#define IRQ_USBCTRL 5
#define IRQ_UART0 20

/* ---- Cortex-M0+ system control space ---- */
#define NVIC_ISER (PPB_BASE + 0xE100)
#define NVIC_ICER (PPB_BASE + 0xE180)
#define NVIC_ISPR (PPB_BASE + 0xE200)
#define NVIC_ICPR (PPB_BASE + 0xE280)
#define NVIC_IPR(n) (PPB_BASE + 0xE400 + 4u * ((n) / 4))
#define SCB_ICSR (PPB_BASE + 0xED04)
#define SCB_VTOR (PPB_BASE + 0xED08)
#define SCB_AIRCR (PPB_BASE + 0xED0C)
#define SCB_SCR (PPB_BASE + 0xED10)
#define SCB_SHPR3 (PPB_BASE + 0xED20)
#define SCB_ICSR_PENDSVSET BIT32(28)
#define SCB_ICSR_VECTACTIVE_MASK 0x1FFu

/* ---- USB controller (datasheet 4.1.4) ---- */
#define USB_ADDR_ENDP (USBCTRL_REGS_BASE + 0x00)
#define USB_MAIN_CTRL (USBCTRL_REGS_BASE + 0x40)
#define USB_SIE_CTRL (USBCTRL_REGS_BASE + 0x4C)
#define USB_SIE_STATUS (USBCTRL_REGS_BASE + 0x50)
#define USB_BUFF_STATUS (USBCTRL_REGS_BASE + 0x58)
#define USB_EP_ABORT (USBCTRL_REGS_BASE + 0x60)
#define USB_EP_ABORT_DONE (USBCTRL_REGS_BASE + 0x64)
#define USB_EP_STALL_ARM (USBCTRL_REGS_BASE + 0x68)
#define USB_USB_MUXING (USBCTRL_REGS_BASE + 0x74)
#define USB_USB_PWR (USBCTRL_REGS_BASE + 0x78)
#define USB_INTR (USBCTRL_REGS_BASE + 0x8C)
#define USB_INTE (USBCTRL_REGS_BASE + 0x90)
#define USB_INTS (USBCTRL_REGS_BASE + 0x98)

#define USB_MAIN_CTRL_CONTROLLER_EN BIT32(0)
#define USB_SIE_CTRL_EP0_INT_1BUF BIT32(29)
#define USB_SIE_CTRL_PULLUP_EN BIT32(16)
#define USB_SIE_STATUS_DATA_SEQ_ERROR BIT32(31)
#define USB_SIE_STATUS_BUS_RESET BIT32(19)
#define USB_SIE_STATUS_SETUP_REC BIT32(17)
#define USB_SIE_STATUS_CONNECTED BIT32(16)
#define USB_SIE_STATUS_SUSPENDED BIT32(4)
#define USB_SIE_STATUS_RESUME BIT32(11)
#define USB_MUXING_TO_PHY BIT32(0)
#define USB_MUXING_SOFTCON BIT32(3)
#define USB_PWR_VBUS_DETECT BIT32(2)
#define USB_PWR_VBUS_DETECT_OVERRIDE_EN BIT32(3)

#define USB_INT_SETUP_REQ BIT32(16)
#define USB_INT_DEV_RESUME_FROM_HOST BIT32(15)
#define USB_INT_DEV_SUSPEND BIT32(14)
#define USB_INT_DEV_CONN_DIS BIT32(13)
#define USB_INT_BUS_RESET BIT32(12)
#define USB_INT_ERROR_DATA_SEQ BIT32(5)
#define USB_INT_BUFF_STATUS BIT32(4)

/* DPRAM layout (device mode) */
#define USB_DPRAM_SETUP (USBCTRL_DPRAM_BASE + 0x000)
#define USB_DPRAM_EP_CTRL_IN(n) (USBCTRL_DPRAM_BASE + 0x008 + 8u * ((n) - 1))
#define USB_DPRAM_EP_CTRL_OUT(n) (USBCTRL_DPRAM_BASE + 0x00C + 8u * ((n) - 1))
#define USB_DPRAM_BUF_CTRL_IN(n) (USBCTRL_DPRAM_BASE + 0x080 + 8u * (n))
#define USB_DPRAM_BUF_CTRL_OUT(n) (USBCTRL_DPRAM_BASE + 0x084 + 8u * (n))
#define USB_DPRAM_EP0_BUF 0x100u
#define USB_DPRAM_EPX_DATA 0x180u
#define USB_DPRAM_SIZE 4096u

/* Endpoint control word */
#define USB_EP_CTRL_ENABLE BIT32(31)
#define USB_EP_CTRL_DOUBLE_BUFFERED BIT32(30)
#define USB_EP_CTRL_INTERRUPT_PER_BUFF BIT32(29)
#define USB_EP_CTRL_TYPE_SHIFT 26

/* Buffer control word (buffer 0) */
#define USB_BUF_CTRL_FULL BIT32(15)
#define USB_BUF_CTRL_LAST BIT32(14)
#define USB_BUF_CTRL_DATA1_PID BIT32(13)
#define USB_BUF_CTRL_SEL BIT32(12)
#define USB_BUF_CTRL_STALL BIT32(11)
#define USB_BUF_CTRL_AVAIL BIT32(10)
#define USB_BUF_CTRL_LEN_MASK 0x3FFu

#endif
