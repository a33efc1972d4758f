/* SPDX-License-Identifier: MIT */
/*
 * catalog_wheels.h - the catalog's wheels: which PyPI distribution ships a
 * family's libraries for one CUDA major, and where it puts them. The wheels
 * are a column of each family's row (cl_catalog_family in catalog.h);
 * catalog_wheels.c answers the questions asked of them.
 */
#ifndef CUDALOAD_CATALOG_WHEELS_H
#define CUDALOAD_CATALOG_WHEELS_H

#include "scan/catalog.h"

/* The wheel of family for CUDA major cuda that ships ABI major abi (0: any)
 * for naming's platform, or NULL. */
const cl_catalog_wheel *cl_catalog_wheel_find(const char *family, int cuda,
                                              long abi, cl_naming naming);

/* Calls fn for every wheel of every family row, in row order
 * (scripts/acceptance asks the index whether each exists). */
void cl_catalog_wheels_each(void (*fn)(const char *family, int cuda_major,
                                       const char *package, void *opaque),
                            void *opaque);

/* The variable that names the folder of a family's libraries, for fix
 * lines: its row's path_variable (CUDNN_PATH for cuDNN), else the
 * toolkit's, CUDA_PATH. */
const char *cl_catalog_path_variable(const char *family);

/* The wheel of a PyPI distribution name ("nvidia-cudnn-cu12",
 * "nvidia_cudnn_cu12", any letter case): its family and CUDA major; NULL
 * for a distribution that ships no CUDA library the catalog knows. */
const cl_catalog_wheel *cl_catalog_wheel_by_package(const char *package,
                                                    size_t len);

/* The wheel of the table, if any, that the distribution `package` (any
 * spelling, as above) is, and that
 * ships family's libraries of ABI major abi, for CUDA
 * major cuda (0: any) and into site-packages/nvidia/<folder> (NULL: any
 * folder): the table's answer to which installed wheel owns a file. */
const cl_catalog_wheel *cl_catalog_wheel_ships(const char *package,
                                               const char *family, long abi,
                                               int cuda, const char *folder);

#endif
