// tpacf-studio: the desktop application.
#include "main_window.h"

#include <QApplication>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    tpacf::ui::MainWindow window;
    window.show();
    return app.exec();
}
