/* segments: PT_LOAD program headers of a 32-bit little-endian ARM ELF through libelf. */
#include "segments.h"

#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

/* Appends the loadable segments of an opened ELF to out. */
static int segments_walk(Elf *e, const uint8_t *data, size_t len, const char *name,
			 xb_segments *out, xb_err *err)
{
	GElf_Ehdr eh;
	if (!gelf_getehdr(e, &eh))
		return xb_fail(err, "%s: corrupt ELF header (%s)", name, elf_errmsg(-1));
	if (eh.e_machine != EM_ARM)
		return xb_fail(err, "%s: an ELF for machine %u, not ARM (40)", name, eh.e_machine);
	if (eh.e_type != ET_EXEC)
		return xb_fail(err, "%s: not an executable (ELF type %u); link the firmware first",
			       name, eh.e_type);
	size_t phnum;
	if (elf_getphdrnum(e, &phnum) != 0)
		return xb_fail(err, "%s: corrupt program headers (%s)", name, elf_errmsg(-1));
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph))
			return xb_fail(err, "%s: program header %zu is unreadable (%s): truncated?",
				       name, i, elf_errmsg(-1));
		if (ph.p_type != PT_LOAD || ph.p_filesz == 0)
			continue;
		if (ph.p_offset > len || ph.p_filesz > len - ph.p_offset)
			return xb_fail(err,
				       "%s: segment %zu's bytes (file offset %llu, %llu bytes) run "
				       "past the end of the file (%zu bytes): truncated?",
				       name, i, (unsigned long long)ph.p_offset,
				       (unsigned long long)ph.p_filesz, len);
		xb_grow(&out->s, &out->cap, out->n + 1, sizeof *out->s);
		out->s[out->n++] = (xb_segment){
			.index = i,
			.paddr = (uint32_t)ph.p_paddr,
			.vaddr = (uint32_t)ph.p_vaddr,
			.filesz = (uint32_t)ph.p_filesz,
			.memsz = (uint32_t)ph.p_memsz,
			.bytes = data + ph.p_offset,
		};
	}
	return 0;
}

int segments_read_elf(xb_segments *out, const uint8_t *data, size_t len, const char *name,
		      xb_err *err)
{
	if (len < EI_NIDENT || memcmp(data, ELFMAG, SELFMAG) != 0)
		return xb_fail(err, "%s: not an ELF file", name);
	if (data[EI_CLASS] != ELFCLASS32)
		return xb_fail(err, "%s: not a 32-bit ELF; the RP2040 runs 32-bit ARM executables",
			       name);
	if (data[EI_DATA] != ELFDATA2LSB)
		return xb_fail(err, "%s: not a little-endian ELF", name);
	if (elf_version(EV_CURRENT) == EV_NONE)
		return xb_fail(err, "libelf: %s", elf_errmsg(-1));
	/* libelf may write into the memory it reads: give it a copy. */
	char *copy = xmalloc(len);
	memcpy(copy, data, len);
	Elf *e = elf_memory(copy, len);
	size_t before = out->n;
	int rc;
	if (!e || elf_kind(e) != ELF_K_ELF)
		rc = xb_fail(err, "%s: not a readable ELF file (%s)", name, elf_errmsg(-1));
	else
		rc = segments_walk(e, data, len, name, out, err);
	if (rc == 0 && out->n == before)
		rc = xb_fail(err, "%s: no loadable segment with file contents", name);
	if (rc)
		out->n = before;
	if (e)
		elf_end(e);
	free(copy);
	return rc;
}

void segments_free(xb_segments *s)
{
	free(s->s);
	memset(s, 0, sizeof *s);
}
