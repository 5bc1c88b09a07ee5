#pragma once
// PLACEHOLDER: the TPACF Studio main window lands with the GUI.
#include <QMainWindow>

namespace tpacf::ui {
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
};
} // namespace tpacf::ui
