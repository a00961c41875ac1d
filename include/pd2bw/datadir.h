/*
 * datadir.h - where the programs find their data: the installed share
 * directory next to the executable, and model arguments given by zoo
 * name or as a Hugging Face model directory.
 */
#ifndef PD2BW_DATADIR_H
#define PD2BW_DATADIR_H

#include <stddef.h>

/*
 * The installed data directory: <bindir>/../share/pd2bw of the running
 * executable when that directory exists (so an installation works
 * wherever PREFIX and DESTDIR put it), else the PD2BW_DATADIR the build
 * was configured with.  Static storage; never NULL.
 */
const char *pd2bw_datadir(void);

/*
 * The file a MODEL (or PROFILE) argument names: a directory holding
 * config.json (a Hugging Face model directory) gives that file; the path
 * itself when it exists or contains '/'; else a zoo model by name:
 * models/NAME.yaml in the current directory, then in the source
 * checkout an uninstalled program runs from (its build/ or build/san/),
 * then pd2bw_datadir()/models/NAME.yaml.  A name with a file's extension
 * (.yaml, .yml, .json, .txt) found in none comes back as it was, for the
 * caller's "cannot open" message; any other name found in none is
 * reported, naming the zoo's directories and the nearest zoo name within
 * a typo, and gives NULL.  Returns arg, buf (n bytes) or NULL.
 */
const char *pd2bw_resolve_model(const char *arg, char *buf, size_t n);

#endif
