// SPDX-License-Identifier: GPL-3.0-or-later
// HDF5 catalogs through libhdf5 (compiled only where it was found), in the two layouts survey
// files and TreeCorr use: a group whose 1-D numeric datasets are the columns (h5py's
// f['catalog/ra'], TreeCorr's ext + ra_col), or a table as one 1-D compound dataset whose fields
// are the columns (astropy's Table.write(..., format='hdf5', path='catalog')). ReadOptions::hdu
// names the group or the dataset ("catalog", "/survey/galaxies"); empty: the root group, or the
// file's only table. Columns are chosen as in a FITS table: by name (any case) or 1-based index
// in the file's order of names, RA and Dec by default from names such as ra/dec.
#include "base/number_text.h"
#include "catalog/fits_reader.h"
#include "catalog/hdf5_reader.h"

#include "tpacf/errors.h"
#include "tpacf/units.h"

#include <hdf5.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <mutex>
#include <new>
#include <string_view>

#include <unistd.h>
#include <optional>
#include <string>
#include <vector>

namespace tpacf::detail {

namespace {

// Debian's libhdf5 is built without thread safety: every call into it, from any thread (the
// CLI reads catalogs side by side, Studio on its loader thread), goes through this lock.
std::mutex& hdf5Use() {
    static std::mutex lock;
    return lock;
}

// An HDF5 identifier closed by the function that fits its kind when it goes out of scope.
class Handle {
public:
    Handle(hid_t id, herr_t (*close)(hid_t)) : m_id(id), m_close(close) {}
    Handle(Handle&& other) noexcept : m_id(other.m_id), m_close(other.m_close) { other.m_id = -1; }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    Handle& operator=(Handle&&) = delete;
    ~Handle() {
        if (m_id >= 0)
            m_close(m_id);
    }
    hid_t get() const noexcept { return m_id; }
    bool valid() const noexcept { return m_id >= 0; }

private:
    hid_t m_id;
    herr_t (*m_close)(hid_t);
};

bool sameName(std::string_view a, std::string_view b) noexcept {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
        return std::tolower(static_cast<unsigned char>(x)) ==
               std::tolower(static_cast<unsigned char>(y));
    });
}

bool numericClass(H5T_class_t type) {
    return type == H5T_INTEGER || type == H5T_FLOAT;
}

// One column: a 1-D dataset of its own, or a field of a compound dataset.
struct Hdf5Column {
    std::string name;
    std::string dataset; // path of the dataset that holds it
    std::string field;   // "" for a dataset of its own
    bool numeric = false;
    long long rows = 0;
};

struct Hdf5Table {
    std::string location; // the group or dataset read, as shown: "/catalog"
    std::vector<Hdf5Column> columns;
    long long rows = 0;
    std::vector<std::string> contents; // what the file holds at the top, for messages
};

// The rows of a dataset (its first dimension) when it is 1-D, or N × 1; nullopt otherwise.
std::optional<long long> rowsOf(hid_t dataset) {
    const Handle space(H5Dget_space(dataset), H5Sclose);
    if (!space.valid())
        return std::nullopt;
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank < 1 || rank > 2)
        return std::nullopt;
    hsize_t dims[2] = {0, 1};
    H5Sget_simple_extent_dims(space.get(), dims, nullptr);
    if (rank == 2 && dims[1] != 1)
        return std::nullopt;
    return static_cast<long long>(dims[0]);
}

// The names of the links in a group, in HDF5's order of names. (The 1.12 API renamed the link
// and object calls; Debian 12 has 1.10.)
std::vector<std::string> linkNames(hid_t group) {
    std::vector<std::string> names;
#if H5_VERSION_GE(1, 12, 0)
    using LinkInfo = H5L_info2_t;
#else
    using LinkInfo = H5L_info_t;
#endif
    // Links within the file only: an external link would open another file (perhaps a FIFO,
    // which blocks), which the user never named.
    const auto collect = [](hid_t, const char* name, const LinkInfo* info, void* data) -> herr_t {
        if (info->type == H5L_TYPE_HARD || info->type == H5L_TYPE_SOFT)
            static_cast<std::vector<std::string>*>(data)->emplace_back(name);
        return 0;
    };
    hsize_t index = 0;
#if H5_VERSION_GE(1, 12, 0)
    H5Literate2(group, H5_INDEX_NAME, H5_ITER_INC, &index, collect, &names);
#else
    H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, &index, collect, &names);
#endif
    return names;
}

// Whether every link on the way to `path` ("/a/b/c") stays in the file: none is external.
bool linksStayInFile(hid_t file, const std::string& path) {
    for (std::size_t end = path.find('/', 1);; end = path.find('/', end + 1)) {
        const std::string prefix = path.substr(0, end);
        if (H5Lexists(file, prefix.c_str(), H5P_DEFAULT) <= 0)
            return false;
#if H5_VERSION_GE(1, 12, 0)
        H5L_info2_t info{};
        if (H5Lget_info2(file, prefix.c_str(), &info, H5P_DEFAULT) < 0)
            return false;
#else
        H5L_info_t info{};
        if (H5Lget_info(file, prefix.c_str(), &info, H5P_DEFAULT) < 0)
            return false;
#endif
        if (info.type != H5L_TYPE_HARD && info.type != H5L_TYPE_SOFT)
            return false;
        if (end == std::string::npos)
            return true;
    }
}

// What `path` names: a group, a dataset, or neither (missing, a dangling link, or one that
// leaves the file: an external link is never followed).
H5O_type_t objectType(hid_t file, const std::string& path) {
    if (!linksStayInFile(file, path))
        return H5O_TYPE_UNKNOWN;
#if H5_VERSION_GE(1, 12, 0)
    H5O_info2_t info{};
    if (H5Oget_info_by_name3(file, path.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
        return H5O_TYPE_UNKNOWN;
#else
    H5O_info_t info{};
    if (H5Oget_info_by_name2(file, path.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
        return H5O_TYPE_UNKNOWN;
#endif
    return info.type;
}

std::string joined(const std::string& group, const std::string& name) {
    return group == "/" ? "/" + name : group + "/" + name;
}

// The fields of a compound dataset as columns.
void addCompoundColumns(hid_t dataset, const std::string& path, long long rows, Hdf5Table& table) {
    const Handle type(H5Dget_type(dataset), H5Tclose);
    const int members = H5Tget_nmembers(type.get());
    for (int m = 0; m < members; ++m) {
        char* name = H5Tget_member_name(type.get(), static_cast<unsigned>(m));
        Hdf5Column column;
        column.name = name ? name : "";
        H5free_memory(name);
        column.dataset = path;
        column.field = column.name;
        column.numeric = numericClass(H5Tget_member_class(type.get(), static_cast<unsigned>(m)));
        column.rows = rows;
        table.columns.push_back(std::move(column));
    }
}

// The table at `location` (a group of column datasets, or a compound dataset), or at the root.
Hdf5Table openTable(hid_t file, const std::string& path, const std::string& wanted) {
    Hdf5Table table;
    std::string location = wanted.empty() ? "/" : (wanted.front() == '/' ? wanted : "/" + wanted);
    while (location.size() > 1 && location.back() == '/')
        location.pop_back();
    table.location = location;
    if (location != "/" && H5Lexists(file, location.c_str(), H5P_DEFAULT) > 0 &&
        !linksStayInFile(file, location))
        throw InputError(path, 0, 0,
                         quoteField(location) + " is a link to another file, which is not "
                         "followed: copy the table into this file, or read that file");
    const H5O_type_t type = location == "/" ? H5O_TYPE_GROUP : objectType(file, location);
    if (type == H5O_TYPE_DATASET) {
        const Handle dataset(H5Dopen2(file, location.c_str(), H5P_DEFAULT), H5Dclose);
        const Handle dataType(H5Dget_type(dataset.get()), H5Tclose);
        const auto rows = rowsOf(dataset.get());
        if (H5Tget_class(dataType.get()) != H5T_COMPOUND || !rows)
            throw InputError(path, 0, 0,
                             "the dataset " + quoteField(location) +
                                 " is not a table (a 1-D compound dataset): name the group that "
                                 "holds the column datasets with --hdu");
        addCompoundColumns(dataset.get(), location, *rows, table);
        table.rows = *rows;
        return table;
    }
    if (type != H5O_TYPE_GROUP)
        throw InputError(path, 0, 0,
                         "no group or dataset " + quoteField(location) + " in the HDF5 file");
    const Handle group(H5Gopen2(file, location.c_str(), H5P_DEFAULT), H5Gclose);
    std::vector<std::string> tables, groups;
    for (const std::string& name : linkNames(group.get())) {
        const std::string child = joined(location, name);
        const H5O_type_t childType = objectType(file, child);
        if (childType == H5O_TYPE_GROUP) {
            groups.push_back(child);
            continue;
        }
        if (childType != H5O_TYPE_DATASET)
            continue;
        const Handle dataset(H5Dopen2(file, child.c_str(), H5P_DEFAULT), H5Dclose);
        const Handle dataType(H5Dget_type(dataset.get()), H5Tclose);
        const auto rows = rowsOf(dataset.get());
        const H5T_class_t kind = H5Tget_class(dataType.get());
        if (kind == H5T_COMPOUND && rows) {
            tables.push_back(child);
            continue;
        }
        if (!rows)
            continue; // an image or a scalar: not a column
        table.columns.push_back({name, child, "", numericClass(kind), *rows});
    }
    table.contents = groups;
    table.contents.insert(table.contents.end(), tables.begin(), tables.end());
    if (table.columns.empty() && tables.size() == 1 && wanted.empty())
        return openTable(file, path, tables.front()); // the file's only table
    if (table.columns.empty())
        throw InputError(path, 0, 0,
                         "no columns (1-D datasets) in " + quoteField(location) +
                             (table.contents.empty()
                                  ? std::string(", and nothing else to read")
                                  : "; it holds " + joinNames(table.contents) +
                                        ": name the group or table with --hdu"));
    // The table's rows: those of the first numeric column; columns of other lengths stay
    // listed, and are refused if chosen.
    for (const Hdf5Column& column : table.columns)
        if (column.numeric) {
            table.rows = column.rows;
            break;
        }
    return table;
}

std::string columnLabel(const Hdf5Column& column) {
    return "column " + quoteField(column.name);
}

std::string availableNames(const Hdf5Table& table) {
    std::vector<std::string> names;
    for (const Hdf5Column& column : table.columns)
        names.push_back(column.name);
    return joinNames(names);
}

bool usable(const Hdf5Column& column, const Hdf5Table& table) {
    return column.numeric && column.rows == table.rows;
}

// 0-based column for an explicit reference or the default of `axis`; nullopt when neither.
std::optional<std::size_t> chooseColumn(const Hdf5Table& table, const std::string& path,
                                        const ColumnRef& ref, std::optional<Axis> axis,
                                        const char* role, const std::vector<std::size_t>& taken) {
    const std::size_t count = table.columns.size();
    std::optional<std::size_t> chosen;
    if (ref.index > 0) {
        if (static_cast<std::size_t>(ref.index) > count)
            throw InputError(path, 0, ref.index,
                             std::string(role) + " is column " + std::to_string(ref.index) +
                                 ", but " + quoteField(table.location) + " has only " +
                                 std::to_string(count) + " columns");
        chosen = static_cast<std::size_t>(ref.index - 1);
    } else if (!ref.name.empty()) {
        for (std::size_t i = 0; i < count && !chosen; ++i)
            if (sameName(table.columns[i].name, ref.name))
                chosen = i;
        if (!chosen)
            throw InputError(path, 0, 0,
                             "no column named " + quoteField(ref.name) + " (for " + role +
                                 ") in " + quoteField(table.location) +
                                 "; available: " + availableNames(table));
    } else if (axis) {
        const auto free = [&](std::size_t i) {
            return std::find(taken.begin(), taken.end(), i) == taken.end() &&
                   usable(table.columns[i], table);
        };
        std::vector<std::string> names;
        for (const Hdf5Column& column : table.columns)
            names.push_back(column.name);
        try {
            chosen = defaultColumnByName(names, *axis, free, path, 0);
        } catch (const InputError& error) {
            if (table.contents.empty())
                throw;
            // The columns may be in a group below: say which there are.
            throw InputError(path, 0, 0,
                             error.problem() + " in " + quoteField(table.location) +
                                 "; the file also holds " + joinNames(table.contents) +
                                 ": name the group or table with --hdu");
        }
        if (!chosen)
            throw InputError(path, 0, 0,
                             std::string("no numeric column left for ") + role + "; columns: " +
                                 availableNames(table));
    }
    if (!chosen)
        return std::nullopt;
    const Hdf5Column& column = table.columns[*chosen];
    if (!column.numeric)
        throw InputError(path, 0, static_cast<int>(*chosen + 1),
                         columnLabel(column) + " (for " + role + ") does not hold numbers");
    if (column.rows != table.rows)
        throw InputError(path, 0, static_cast<int>(*chosen + 1),
                         columnLabel(column) + " (for " + role + ") has " +
                             std::to_string(column.rows) + " rows, the table's other columns " +
                             std::to_string(table.rows));
    return chosen;
}

// `count` values of a column from row `first`, as doubles (HDF5 converts integers and floats).
std::vector<double> readRows(hid_t file, const std::string& path, const Hdf5Column& column,
                             long long first, long long count) {
    std::vector<double> values;
    try {
        values.resize(static_cast<std::size_t>(count));
    } catch (const std::bad_alloc&) {
        throw InputError(path, 0, 0,
                         columnLabel(column) + ": " + std::to_string(count) +
                             " rows do not fit in memory");
    }
    if (count == 0)
        return values;
    const Handle dataset(H5Dopen2(file, column.dataset.c_str(), H5P_DEFAULT), H5Dclose);
    const Handle fileSpace(H5Dget_space(dataset.get()), H5Sclose);
    const int rank = H5Sget_simple_extent_ndims(fileSpace.get());
    const hsize_t start[2] = {static_cast<hsize_t>(first), 0};
    const hsize_t size[2] = {static_cast<hsize_t>(count), 1};
    H5Sselect_hyperslab(fileSpace.get(), H5S_SELECT_SET, start, nullptr, size, nullptr);
    const Handle memorySpace(H5Screate_simple(rank, size, nullptr), H5Sclose);
    herr_t status = -1;
    if (column.field.empty()) {
        status = H5Dread(dataset.get(), H5T_NATIVE_DOUBLE, memorySpace.get(), fileSpace.get(),
                         H5P_DEFAULT, values.data());
    } else {
        // One field of the compound rows, converted to double as it is read.
        const Handle memoryType(H5Tcreate(H5T_COMPOUND, sizeof(double)), H5Tclose);
        H5Tinsert(memoryType.get(), column.field.c_str(), 0, H5T_NATIVE_DOUBLE);
        status = H5Dread(dataset.get(), memoryType.get(), memorySpace.get(), fileSpace.get(),
                         H5P_DEFAULT, values.data());
    }
    if (status < 0)
        throw InputError(path, 0, 0,
                         "cannot read " + columnLabel(column) + " from " +
                             quoteField(column.dataset) +
                             " (a damaged file, or a filter this libhdf5 lacks)");
    return values;
}

// The whole column, every value finite.
std::vector<double> readColumn(hid_t file, const std::string& path, const Hdf5Table& table,
                               std::size_t index, const char* role, const ReadOptions& options) {
    throwIfCancelled(options);
    const Hdf5Column& column = table.columns[index];
    std::vector<double> values = readRows(file, path, column, 0, table.rows);
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i])) {
            const long row = static_cast<long>(i + 1);
            throw InputError(path, row, static_cast<int>(index + 1),
                             "row " + std::to_string(row) + ", " + columnLabel(column) + ": " +
                                 role + " value " + formatDouble(values[i]) + " is not finite");
        }
    return values;
}

// The file opened read-only, with libhdf5's own error printing off (errors are ours to say).
Handle openFile(const std::string& path) {
    openRegularFile(path); // a FIFO, device or directory is refused before libhdf5 sees it
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file.valid())
        throw InputError(path, 0, 0, "cannot open as HDF5 (a damaged or truncated file)");
    return file;
}

CatalogOrigin hdf5Origin(const Hdf5Table& table, const ReadOptions& options,
                         const std::vector<std::optional<std::size_t>>& chosen) {
    CatalogOrigin origin;
    origin.format = "hdf5";
    const auto name = [&](std::size_t role) {
        return chosen[role] ? table.columns[*chosen[role]].name : std::string();
    };
    origin.raColumn = name(0);
    origin.decColumn = name(1);
    origin.weightColumn = name(2);
    origin.regionColumn = name(3);
    const std::string unit(angleUnitName(options.coordUnit));
    origin.unit = options.raInHours ? "RA in hours, Dec in " + unit : unit;
    origin.columnChoice =
        options.raColumn.isSet() && options.decColumn.isSet() ? "as chosen" : "column names";
    origin.selection = "HDF5 " + table.location;
    origin.rows = static_cast<std::uint64_t>(table.rows);
    return origin;
}

} // namespace

bool startsWithHdf5Signature(const std::string& path) {
    constexpr std::string_view kSignature = "\x89HDF\r\n\x1A\n";
    try {
        const OpenedFile file = openRegularFile(path);
        char head[8] = {};
        return ::pread(file.fd.get(), head, sizeof head, 0) == static_cast<ssize_t>(sizeof head) &&
               std::string_view(head, sizeof head) == kSignature;
    } catch (const InputError&) {
        return false;
    }
}

Catalog readHdf5Catalog(const std::string& path, const ReadOptions& options) {
    const std::lock_guard<std::mutex> serial(hdf5Use());
    const Handle file = openFile(path);
    const Hdf5Table table = openTable(file.get(), path, options.hdu);
    std::vector<std::size_t> taken;
    std::vector<std::optional<std::size_t>> chosen(4);
    chosen[0] = chooseColumn(table, path, options.raColumn, Axis::Ra, "RA", taken);
    taken.push_back(*chosen[0]);
    chosen[1] = chooseColumn(table, path, options.decColumn, Axis::Dec, "Dec", taken);
    taken.push_back(*chosen[1]);
    if (options.weightColumn.isSet())
        chosen[2] = chooseColumn(table, path, options.weightColumn, std::nullopt, "the weight",
                                 taken);
    if (options.regionColumn.isSet())
        chosen[3] = chooseColumn(table, path, options.regionColumn, std::nullopt,
                                 "the jackknife region", taken);
    if (table.rows <= 0)
        throw InputError(path, 0, 0, "the table " + quoteField(table.location) + " has no rows");

    std::vector<double> ra = readColumn(file.get(), path, table, *chosen[0], "RA", options);
    std::vector<double> dec = readColumn(file.get(), path, table, *chosen[1], "Dec", options);
    std::vector<double> weight;
    if (chosen[2])
        weight = readColumn(file.get(), path, table, *chosen[2], "weight", options);
    std::vector<std::int32_t> region;
    if (chosen[3]) {
        const std::vector<double> labels =
            readColumn(file.get(), path, table, *chosen[3], "region", options);
        region.reserve(labels.size());
        for (std::size_t i = 0; i < labels.size(); ++i)
            region.push_back(regionLabel(labels[i], path, static_cast<long>(i + 1),
                                         static_cast<int>(*chosen[3] + 1),
                                         formatDouble(labels[i])));
    }
    const CoordinateConverter convert(options);
    for (std::size_t i = 0; i < ra.size(); ++i) {
        const std::optional<double> decRadians = convert.decRadians(dec[i]);
        if (!decRadians) {
            const long row = static_cast<long>(i + 1);
            throw InputError(path, row, static_cast<int>(*chosen[1] + 1),
                             "row " + std::to_string(row) + ", " +
                                 columnLabel(table.columns[*chosen[1]]) + ": " +
                                 convert.decRangeProblem(formatDouble(dec[i]), dec[i]));
        }
        ra[i] = convert.raRadians(ra[i]);
        dec[i] = *decRadians;
    }
    Catalog catalog = Catalog::fromRadians(path, std::move(ra), std::move(dec), std::move(weight),
                                           std::move(region));
    catalog.setOrigin(hdf5Origin(table, options, chosen));
    return catalog;
}

TablePreview previewHdf5File(const std::string& path, std::size_t maxRows) {
    const std::lock_guard<std::mutex> serial(hdf5Use());
    const Handle file = openFile(path);
    const Hdf5Table table = openTable(file.get(), path, {});
    TablePreview preview;
    preview.hasHeader = true;
    preview.columnCount = table.columns.size();
    preview.hdus.push_back("HDF5 " + table.location + " (" + std::to_string(table.rows) +
                           " rows, " + std::to_string(table.columns.size()) + " columns)");
    for (const std::string& other : table.contents)
        preview.hdus.push_back("HDF5 " + other);
    const long long rows = std::min<long long>(table.rows, static_cast<long long>(maxRows));
    preview.rows.assign(static_cast<std::size_t>(std::max(0LL, rows)),
                        std::vector<std::string>(table.columns.size()));
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
        const Hdf5Column& column = table.columns[c];
        preview.columnNames.push_back(column.name);
        if (!column.numeric || rows <= 0) {
            for (auto& row : preview.rows)
                row[c] = "?";
            continue;
        }
        const std::vector<double> values =
            readRows(file.get(), path, column, 0, std::min(rows, column.rows));
        for (std::size_t r = 0; r < values.size(); ++r)
            preview.rows[r][c] = formatDouble(values[r]);
    }
    return preview;
}

} // namespace tpacf::detail

namespace tpacf {

std::string hdf5LibraryVersion() {
    unsigned major = 0, minor = 0, release = 0;
    H5get_libversion(&major, &minor, &release);
    return "libhdf5 " + std::to_string(major) + "." + std::to_string(minor) + "." +
           std::to_string(release);
}

} // namespace tpacf
