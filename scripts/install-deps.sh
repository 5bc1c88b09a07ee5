#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs what building and testing TPACF Studio needs on Debian 12 (run as root).
# Installs nothing that is already there; safe to run again.
set -euo pipefail

packages=(cmake ninja-build g++ pkg-config
          qt6-base-dev libqcustomplot-dev libcfitsio-dev zlib1g-dev qt6-svg-dev libhdf5-dev
          xvfb xauth python3-astropy python3-h5py
          appstream desktop-file-utils shared-mime-info
          libopenmpi-dev openmpi-bin
          libhealpix-cxx-dev python3-healpy
          pybind11-dev python3-dev python3-numpy python3-pytest python3-matplotlib
          python3-setuptools python3-wheel python3-pip python3-venv
          python3-nbconvert python3-ipykernel
          stilts)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "Installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
