/*
 * objstore-exporter's native fs walk (N-API, C): reads one folder through its own descriptor and
 * stats each entry relative to it (fstatat), as `du` does, instead of resolving every file's whole
 * path again (Node's lstatSync) and building a Stats object with four Dates per file. Used by
 * src/sources/fs/native-walk.ts when built (scripts/build-native.mjs); the JavaScript walk
 * is the fallback. N-API only (ABI-stable across Node versions); no state outside the handles, so
 * it loads in every worker thread.
 *
 *   open(path: string): handle | number
 *     path: a byte string (latin1, one character per byte). A negative number is -errno: ENOTDIR
 *     also for a symbolic link (the folder is not followed, as the JavaScript walk's lstat check).
 *   read(handle, kinds: Uint8Array, sizes: Float64Array, mtimes: Float64Array, names: string[],
 *        fileNames: boolean): number
 *     Fills up to kinds.length entries (fewer: the folder is done) and returns how many, or -errno
 *     when reading the folder failed. kinds[i]: 1 a folder (names[i] set), 2 a regular file
 *     (sizes[i], mtimes[i] as Stats.mtimeMs computes it; names[i] when `fileNames`), 3 an entry
 *     that could not be stat'ed (sizes[i] = errno). Entries gone since the folder was read
 *     (ENOENT) and anything else (links, sockets, fifos, devices) are left out.
 *   close(handle): undefined. Closes the descriptor (also done if a handle is collected unclosed).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <node_api.h>

enum { KIND_DIR = 1, KIND_FILE = 2, KIND_UNREADABLE = 3 };

typedef struct {
  DIR *dir;
  /* Bytes of the folder's path: a path longer than PATH_MAX is unreadable to the JavaScript walk. */
  size_t path_length;
} folder_t;

/* Longest folder path accepted: Node's lstat of longer paths fails too (ENAMETOOLONG). */
#define PATH_BUFFER (PATH_MAX + 1)

/* A failed N-API call throws (unless it already did) and returns undefined to JavaScript. */
#define CHECK(call)                                                                               \
  do {                                                                                            \
    if ((call) != napi_ok) return failed(env);                                                    \
  } while (0)

static napi_value failed(napi_env env) {
  bool pending = false;
  if (napi_is_exception_pending(env, &pending) == napi_ok && !pending)
    napi_throw_type_error(env, NULL, "fswalk: bad arguments");
  return NULL;
}

static void close_folder(folder_t *folder) {
  if (folder->dir != NULL) {
    closedir(folder->dir);
    folder->dir = NULL;
  }
}

static void finalize_folder(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  close_folder((folder_t *)data);
  free(data);
}

static napi_value make_int(napi_env env, int value) {
  napi_value result;
  if (napi_create_int32(env, value, &result) != napi_ok) return failed(env);
  return result;
}

static napi_value open_folder(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  char path[PATH_BUFFER];
  size_t length = 0;
  /* latin1: one byte per character, the name's bytes exactly. Longer than PATH_MAX: not opened. */
  CHECK(napi_get_value_string_latin1(env, argv[0], path, sizeof path, &length));
  if (length >= PATH_MAX) return make_int(env, -ENAMETOOLONG);
  if (memchr(path, 0, length) != NULL) return make_int(env, -ENOENT);
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return make_int(env, errno == ELOOP ? -ENOTDIR : -errno);
  folder_t *folder = malloc(sizeof *folder);
  DIR *dir = folder != NULL ? fdopendir(fd) : NULL;
  if (dir == NULL) {
    int failure = folder != NULL ? errno : ENOMEM;
    close(fd);
    free(folder);
    return make_int(env, -failure);
  }
  folder->dir = dir;
  folder->path_length = length;
  napi_value handle;
  if (napi_create_external(env, folder, finalize_folder, NULL, &handle) != napi_ok) {
    close_folder(folder);
    free(folder);
    return failed(env);
  }
  return handle;
}

static folder_t *folder_of(napi_env env, napi_value value) {
  void *data = NULL;
  if (napi_get_value_external(env, value, &data) != napi_ok) return NULL;
  return (folder_t *)data;
}

static napi_value close_handle(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  folder_t *folder = folder_of(env, argv[0]);
  if (folder == NULL) {
    napi_throw_type_error(env, NULL, "not a folder handle");
    return NULL;
  }
  close_folder(folder);
  return NULL;
}

static int typed_array(napi_env env, napi_value value, napi_typedarray_type want, void **data, size_t *length) {
  napi_typedarray_type type;
  napi_value buffer;
  size_t offset;
  if (napi_get_typedarray_info(env, value, &type, length, data, &buffer, &offset) != napi_ok) return 0;
  return type == want;
}

static int set_name(napi_env env, napi_value names, uint32_t index, const char *name) {
  napi_value string;
  if (napi_create_string_latin1(env, name, NAPI_AUTO_LENGTH, &string) != napi_ok) return 0;
  return napi_set_element(env, names, index, string) == napi_ok;
}

static napi_value read_folder(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  folder_t *folder = argc == 6 ? folder_of(env, argv[0]) : NULL;
  uint8_t *kinds;
  double *sizes, *mtimes;
  size_t capacity, sizes_length, mtimes_length;
  bool file_names = false;
  if (folder == NULL || !typed_array(env, argv[1], napi_uint8_array, (void **)&kinds, &capacity) ||
      !typed_array(env, argv[2], napi_float64_array, (void **)&sizes, &sizes_length) ||
      !typed_array(env, argv[3], napi_float64_array, (void **)&mtimes, &mtimes_length) ||
      napi_get_value_bool(env, argv[5], &file_names) != napi_ok || sizes_length < capacity ||
      mtimes_length < capacity) {
    napi_throw_type_error(env, NULL, "read(handle, Uint8Array, Float64Array, Float64Array, names, boolean)");
    return NULL;
  }
  if (folder->dir == NULL) return make_int(env, -EBADF);
  int fd = dirfd(folder->dir);
  size_t count = 0;
  while (count < capacity) {
    errno = 0;
    struct dirent *entry = readdir(folder->dir);
    if (entry == NULL) {
      if (errno != 0) return make_int(env, -errno);
      break;
    }
    const char *name = entry->d_name;
    if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
    unsigned char type = entry->d_type;
    if (type == DT_DIR) {
      kinds[count] = KIND_DIR;
      if (!set_name(env, argv[4], (uint32_t)count, name)) return failed(env);
      count++;
      continue;
    }
    if (type != DT_REG && type != DT_UNKNOWN) continue;
    struct stat stats;
    int failure = 0;
    /* As the JavaScript walk, which stats the whole path: one longer than PATH_MAX fails. */
    if (folder->path_length + 1 + strlen(name) >= PATH_MAX) failure = ENAMETOOLONG;
    else if (fstatat(fd, name, &stats, AT_SYMLINK_NOFOLLOW) != 0) failure = errno;
    if (failure == ENOENT) continue;
    if (failure != 0) {
      kinds[count] = KIND_UNREADABLE;
      sizes[count] = failure;
      mtimes[count] = 0;
      count++;
      continue;
    }
    if (type == DT_UNKNOWN && S_ISDIR(stats.st_mode)) {
      kinds[count] = KIND_DIR;
      if (!set_name(env, argv[4], (uint32_t)count, name)) return failed(env);
      count++;
      continue;
    }
    if (!S_ISREG(stats.st_mode)) continue;
    kinds[count] = KIND_FILE;
    sizes[count] = (double)stats.st_size;
    /* Node's Stats.mtimeMs: sec * 1e3 + nsec / 1e6, in doubles (built without FMA contraction). */
    mtimes[count] = (double)stats.st_mtim.tv_sec * 1e3 + (double)stats.st_mtim.tv_nsec / 1e6;
    if (file_names && !set_name(env, argv[4], (uint32_t)count, name)) return failed(env);
    count++;
  }
  return make_int(env, (int)count);
}

NAPI_MODULE_INIT() {
  napi_property_descriptor methods[] = {
      {"open", NULL, open_folder, NULL, NULL, NULL, napi_default, NULL},
      {"read", NULL, read_folder, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, close_handle, NULL, NULL, NULL, napi_default, NULL},
  };
  if (napi_define_properties(env, exports, sizeof methods / sizeof methods[0], methods) != napi_ok) return NULL;
  return exports;
}
