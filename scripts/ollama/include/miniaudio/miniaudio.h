/*
 * Stand-in for miniaudio.h, used only to build the Ollama server from the Go
 * module proxy (scripts/ollama/build.sh).
 *
 * Go module zips leave out every directory named "vendor", so Ollama's module
 * lacks llama.cpp's vendor/miniaudio/miniaudio.h, and Debian 12 has no package
 * for it. The one user is llama.cpp's tools/mtmd/mtmd-helper.cpp, which decodes
 * audio clips given to multimodal (speech-input) models. pakton never sends
 * audio, so this header declares exactly the names that file uses and makes
 * every decode fail cleanly: the server then treats audio input as "not a
 * valid audio file" instead of crashing. Nothing else in the server changes.
 */
#ifndef PAKTON_MINIAUDIO_STANDIN_H
#define PAKTON_MINIAUDIO_STANDIN_H

#include <stddef.h>
#include <stdint.h>

#ifndef MA_API
#define MA_API static
#endif

typedef int ma_result;
typedef uint32_t ma_uint32;
typedef uint64_t ma_uint64;

#define MA_SUCCESS 0
#define MA_NOT_IMPLEMENTED (-29)

typedef enum { ma_format_unknown = 0, ma_format_f32 = 5 } ma_format;

typedef struct {
    ma_format format;
    ma_uint32 channels;
    ma_uint32 sampleRate;
} ma_decoder_config;

typedef struct {
    ma_decoder_config config;
} ma_decoder;

MA_API ma_decoder_config ma_decoder_config_init(ma_format format, ma_uint32 channels, ma_uint32 sampleRate) {
    ma_decoder_config c;
    c.format = format;
    c.channels = channels;
    c.sampleRate = sampleRate;
    return c;
}

/* Audio decoding is not built in: every clip is refused. */
MA_API ma_result ma_decoder_init_memory(const void * data, size_t size, const ma_decoder_config * config, ma_decoder * decoder) {
    (void) data; (void) size; (void) config; (void) decoder;
    return MA_NOT_IMPLEMENTED;
}

MA_API ma_result ma_decoder_get_length_in_pcm_frames(ma_decoder * decoder, ma_uint64 * length) {
    (void) decoder;
    if (length) *length = 0;
    return MA_NOT_IMPLEMENTED;
}

MA_API ma_result ma_decoder_read_pcm_frames(ma_decoder * decoder, void * frames, ma_uint64 count, ma_uint64 * read) {
    (void) decoder; (void) frames; (void) count;
    if (read) *read = 0;
    return MA_NOT_IMPLEMENTED;
}

MA_API ma_result ma_decoder_uninit(ma_decoder * decoder) {
    (void) decoder;
    return MA_SUCCESS;
}

#endif
