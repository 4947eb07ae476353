"""The symbols of a structure drawn into the scene: members and hinges, supports and
ground, link bars, arrows, distributed loads and couples."""
