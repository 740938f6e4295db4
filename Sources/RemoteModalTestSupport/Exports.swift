// The robot that answers by meaning lives in RemoteModalRobot (on the client core only, so
// the kiosk's --script can use it without linking the host); tests get it from here too.
@_exported import RemoteModalRobot
