#include "main_window.h"

namespace tpacf::ui {
MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {}
} // namespace tpacf::ui
